import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayCore
import GatewayStore
import Logging

/// `pdfgate convert SOURCE...`: URLs and files to PDFs, filed in the library, as durable jobs.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert URLs and files to PDF and file them in the library.",
        discussion: "Each SOURCE becomes a job: office files go to LibreOffice, HTML files and URLs to Chromium, ebooks to Calibre."
    )

    @Argument(help: "URLs (http/https) or files.")
    var sources: [String]

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

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if name != nil && sources.count > 1 { throw ValidationError("--name applies to a single source") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            var logger = Logger(label: "pdfgate.convert")
            logger.logLevel = .warning
            let stores = try library.openStores()
            // Its own engine would claim the cluster's jobs and leave when its own are done.
            guard !stores.shared else {
                throw LibraryError(
                    .invalidArgument,
                    "convert runs an engine of its own on an embedded store; with a shared database, send the sources to a gateway's API (POST /v1/jobs)"
                )
            }
            let allow = Set(allowHost + (ProcessInfo.processInfo.environment["PDFGATE_URL_ALLOWLIST"] ?? "").split(separator: ",").map(String.init))
            let assembly = try EngineAssembly(
                stores: stores,
                routes: BackendChoice.everyType(try BackendChoice(parsing: converter)),
                timeouts: timeout.map { t in Dictionary(uniqueKeysWithValues: JobType.allCases.map { ($0, .milliseconds(Int64(t * 1000))) }) } ?? [:],
                urlAllowList: allow,
                gatewayToken: ProcessInfo.processInfo.environment["PDFGATE_GATEWAY_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
                logger: logger
            )
            let runner = Task { await assembly.engine.run() }
            defer { runner.cancel() }

            var jobs: [(source: String, id: UUID)] = []
            var failed = 0
            let progress = JobProgress(engine: assembly.engine)
            for source in sources {
                do {
                    let id = try await submit(source, to: assembly.intake, owner: library.resolvedOwner)
                    progress.track(id, source: source)
                    jobs.append((source, id))
                } catch let error as any GatewayError {
                    Output.printError("\(source): \(error.message) [\(error.code)]")
                    failed += 1
                }
            }
            let finished = try await watch(jobs, engine: assembly.engine, progress: progress)
            runner.cancel()
            await runner.value
            await assembly.shutdown()

            var documents: [Document] = []
            for (source, job) in finished {
                if job.state.status == .succeeded, let id = job.state.documentID {
                    documents.append(try stores.library.document(id: id, owner: job.owner))
                } else {
                    let failure = job.state.failure
                    Output.printError(
                        "\(source): \(job.state.status.rawValue): \(failure?.message ?? "no reason recorded") [\(failure?.code ?? "failed")]"
                    )
                    failed += 1
                }
            }
            if output.json {
                Output.printJSON(documents.map(DocumentJSON.init))
            } else if !documents.isEmpty {
                Output.printTable(
                    ["ID", "PATH", "PAGES", "SIZE"],
                    documents.map { [$0.id.lowercased, $0.relativePath, "\($0.info.pageCount)", Output.bytes($0.size)] }
                )
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }

    /// Creates the job through the intake (the API's rules, without an operator's pacing limits);
    /// for a file, a copy becomes its input and the job is submitted.
    private func submit(_ source: String, to intake: JobIntake, owner: String) async throws -> UUID {
        // Checked with the rest of the spec by the intake, as the API's are.
        let options = try ConversionOptions.fromKeyValues(conversionOptions) ?? ConversionOptions()
        let isURL = source.hasPrefix("http://") || source.hasPrefix("https://")
        if isURL {
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
        let path = URL(fileURLWithPath: source).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw LibraryError(.invalidArgument, "cannot read '\(source)'; give a URL starting with http:// or https://, or a readable file")
        }
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
        return try await intake.create(spec, owner: owner, input: .copying(path)).job.id
    }

    /// Waits for every job to end, showing their progress.
    private func watch(_ jobs: [(source: String, id: UUID)], engine: JobEngine, progress: JobProgress) async throws -> [(String, Job)] {
        while true {
            let current = try jobs.map { ($0.source, try requireJob(engine.job($0.id), $0.id)) }
            progress.show()
            if current.allSatisfy({ $0.1.state.status.isTerminal }) { return current }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// A job we just created must exist; its absence is a storage fault worth saying plainly.
private func requireJob(_ job: Job?, _ id: UUID) throws -> Job {
    guard let job else { throw LibraryError(.storage, "job \(id.lowercased) vanished from the job store") }
    return job
}
