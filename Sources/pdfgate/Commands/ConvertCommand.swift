import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayCore
import GatewayEngine
import GatewayJobModel
import GatewayLibraryModel
import GatewayStore
import Logging

/// `pdfgate convert SOURCE...`: URLs and files to PDFs, filed in the library, as durable jobs.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert URLs and files to PDF and file them in the library.",
        discussion: """
            Each SOURCE becomes a job: office files go to LibreOffice, HTML files and URLs to Chromium, ebooks to Calibre. \
            With --merge, all of them make one job and one document, in the order given.
            """
    )

    @Argument(help: "URLs (http/https) or files.")
    var sources: [String]

    @Flag(help: "Convert every SOURCE in one job and merge the PDFs, in order, into one document.")
    var merge = false

    @Option(help: "Folder path or id to file into (created if missing). Default: the root.")
    var folder: String?

    @Option(help: "Document name (only with a single source). Default: the file name, or the URL's host and path.")
    var name: String?

    @Option(help: "When the name is taken: fail, or rename to 'Name 01', ….")
    var onConflict: ConflictPolicy = .rename

    @Option(help: "Backend: local, gotenberg=URL or gateway=URL (a peer with tokens: its token in $PDFGATE_GATEWAY_TOKEN).")
    var converter = "local"

    @Option(help: "Seconds each job may take, retries included (default 120).")
    var timeout: Double?

    @Option(help: "Host or host:port that URL jobs may reach even if private (repeatable; also $PDFGATE_URL_ALLOWLIST, comma-separated).")
    var allowHost: [String] = []

    @Option(
        name: .customLong("option"),
        help:
            "A conversion option as key=value, as the API's `options` has them (repeatable), e.g. --option scale=0.8 --option wait_for_selector='#ready'."
    )
    var conversionOptions: [String] = []

    @Option(help: "Opens protected files: office documents, PDFs (also $PDFGATE_PDF_PASSWORD, which stays out of the process list). Never stored.")
    var password: String?

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if name != nil && sources.count > 1 && !merge { throw ValidationError("--name applies to a single source, or to --merge") }
        if merge && sources.count < 2 { throw ValidationError("--merge needs two or more sources") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            let failed = try await withEmbeddedEngine(library, what: "convert", converter: converter, timeout: timeout, allowHosts: Set(allowHost)) {
                assembly in
                var jobs: [(source: String, id: UUID)] = []
                var refused = 0
                let progress = JobProgress(engine: assembly.engine)
                for source in merge ? ["merge of \(sources.count) sources"] : sources {
                    do {
                        let id =
                            merge
                            ? try await submitMerged(to: assembly.intake, owner: library.resolvedOwner)
                            : try await submit(source, to: assembly.intake, owner: library.resolvedOwner)
                        progress.track(id, source: source)
                        jobs.append((source, id))
                    } catch let error as any GatewayError {
                        Output.printError("\(source): \(error.message) [\(error.code)]")
                        refused += 1
                    }
                }
                let finished = try await watch(jobs, engine: assembly.engine, progress: progress)
                return await refused + (try reportJobs(finished, library: assembly.library, json: output.json))
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }

    /// Creates the job through the intake (the API's rules, without an operator's pacing limits);
    /// for a file, a copy becomes its input and the job is submitted.
    private func submit(_ source: String, to intake: JobIntake, owner: String) async throws -> UUID {
        // Checked with the rest of the spec by the intake, as the API's are.
        let options = try ConversionOptions.fromKeyValues(conversionOptions) ?? ConversionOptions()
        if Self.isURL(source) {
            let spec = JobSpec(
                type: .urlToPDF,
                url: source,
                folder: folder,
                name: name,
                onConflict: onConflict,
                options: options,
                timeoutSeconds: timeout
            )
            return try await intake.create(spec, owner: owner).job.id
        }
        let path = try Self.readablePath(source)
        let filename = (path as NSString).lastPathComponent
        let spec = JobSpec(
            type: JobType.forFilename(filename),
            originalFilename: filename,
            folder: folder,
            name: name,
            onConflict: onConflict,
            options: options,
            timeoutSeconds: timeout
        )
        return try await intake.create(spec, owner: owner, inputs: [.copying(path)], secrets: secrets).job.id
    }

    /// `--merge`: one PDF_TO_PDF job whose inputs are every source, in order; copies of the
    /// files become its inputs.
    private func submitMerged(to intake: JobIntake, owner: String) async throws -> UUID {
        let options = try ConversionOptions.fromKeyValues(conversionOptions) ?? ConversionOptions()
        var inputs: [JobInput] = []
        var files: [JobIntake.Input] = []
        for source in sources {
            if Self.isURL(source) {
                inputs.append(.url(source))
            } else {
                let path = try Self.readablePath(source)
                inputs.append(.file((path as NSString).lastPathComponent))
                files.append(.copying(path))
            }
        }
        let spec = JobSpec(
            type: .pdfToPDF,
            folder: folder,
            name: name,
            onConflict: onConflict,
            options: options,
            timeoutSeconds: timeout,
            inputs: inputs
        )
        return try await intake.create(spec, owner: owner, inputs: files, secrets: secrets).job.id
    }

    private var secrets: JobSecrets {
        JobSecrets(password: password ?? environmentSecret("PDFGATE_PDF_PASSWORD"))
    }

    private static func isURL(_ source: String) -> Bool { source.hasPrefix("http://") || source.hasPrefix("https://") }

    private static func readablePath(_ source: String) throws -> String {
        let path = URL(fileURLWithPath: source).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw LibraryError(.invalidArgument, "cannot read '\(source)'; give a URL starting with http:// or https://, or a readable file")
        }
        return path
    }
}
