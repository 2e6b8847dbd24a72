import Foundation
import GatewayConversionFormats
import GatewayJobModel
import GatewayPDFTools
import GatewayProcess
import GatewaySandbox

/// Office documents → PDF through a bounded set of warm LibreOffice slots (DESIGN §4), with a
/// cold, fresh LibreOffice as the safety net for a document that crashes a warm one.
final class LibreOfficePool: Converter {
    let name = "local.libreoffice"
    let workers: WarmWorkerPool
    private let configuration: LocalConverter.Configuration
    private let scriptPath: String
    /// Pipe names are global to the machine: ours carry the process and the pool.
    private let token: String
    private var sofficePath: String { configuration.sofficePath }
    private var pythonPath: String { configuration.pythonPath }
    private var sandbox: ConverterSandbox { configuration.sandbox }

    /// Slots are created here but start LibreOffice lazily, on their first conversion.
    /// `directory` must be private to this pool; the UNO worker script is written into it.
    init(configuration: LocalConverter.Configuration, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scriptPath = directory + "/" + UnoWorkerScript.fileName
        try UnoWorkerScript.source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let token = "\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        self.configuration = configuration
        self.scriptPath = scriptPath
        self.token = token
        let workers = (0..<max(1, configuration.libreOfficeSlots)).map { index in
            Self.worker(
                configuration: configuration,
                scriptPath: scriptPath,
                directory: directory + "/slot-\(index)",
                pipeName: "pdfgate-\(token)-slot-\(index)",
                maxConversions: max(1, configuration.maxConversionsPerLibreOfficeInstance)
            )
        }
        self.workers = WarmWorkerPool(tool: "LibreOffice", workers: workers, limits: configuration.sandbox.limits)
    }

    /// A slot: soffice and the UNO worker in `directory`, started on first use.
    private static func worker(
        configuration: LocalConverter.Configuration,
        scriptPath: String,
        directory: String,
        pipeName: String,
        maxConversions: Int
    ) -> WarmWorker {
        WarmWorker(
            settings: .init(
                tool: "LibreOffice",
                directory: directory,
                maxConversions: maxConversions,
                startTimeout: configuration.libreOfficeStartTimeout,
                sandbox: configuration.sandbox,
                logs: [directory + "/worker.log", directory + "/soffice.log"],
                launch: { socket in
                    Self.launch(configuration: configuration, scriptPath: scriptPath, directory: directory, pipeName: pipeName, socket: socket)
                },
                // A profile left half-written by a killed soffice can keep it from starting: begin anew.
                afterFailedStart: { try? FileManager.default.removeItem(atPath: directory + "/profile") }
            )
        )
    }

    /// soffice in the background and the UNO worker as the sandbox's command, its stdin and
    /// stdout `socket`. The UNO pipe is a socket in the sandbox's private /tmp.
    private static func launch(
        configuration: LocalConverter.Configuration,
        scriptPath: String,
        directory: String,
        pipeName: String,
        socket: Int32
    ) -> ChildSpec {
        let profile = directory + "/profile"
        LibreOfficeProfile.prepare(profile, soffice: configuration.sofficePath)
        let sofficeArguments = [
            configuration.sofficePath, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck",
            "--nofirststartwizard", "--accept=pipe,name=\(pipeName);urp;StarOffice.ComponentContext",
            "-env:UserInstallation=\(URL(fileURLWithPath: profile).absoluteString)",
        ]
        // In a sandbox the worker's parent is the sandbox's init, so it cannot watch the gateway;
        // it needs not: the sandbox ends with it, and it ends when our socket closes.
        let watchedParent = configuration.sandbox.isSealed ? "0" : String(getpid())
        // soffice in the background, then the shell becomes the worker (stdin/stdout: our socket).
        let launcher =
            #"log=$1 wlog=$2 py=$3 worker=$4 pipe=$5 timeout=$6 parent=$7; shift 7; "$@" </dev/null >>"$log" 2>&1 & exec "$py" "$worker" "$pipe" "$timeout" "$parent" 2>>"$wlog""#
        return configuration.sandbox.wrap(
            ChildSpec(
                executable: "/bin/sh",
                arguments: [
                    "-c", launcher, "sh", directory + "/soffice.log", directory + "/worker.log", configuration.pythonPath, scriptPath, pipeName,
                    String(configuration.libreOfficeStartTimeout.inSeconds), watchedParent,
                ] + sofficeArguments,
                environment: childEnvironment(privateDirectory: directory),
                workingDirectory: directory,
                stdin: .descriptor(socket),
                stdout: .descriptor(socket),
                stderr: .file(directory + "/worker.log")
            ),
            mounts: .init(writable: [directory], readable: [scriptPath]),
            backstops: .init(addressSpace: true, cpu: false)
        )
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        guard case .file(let path, let originalFilename) = request.source else {
            throw JobFailure(.rejected, code: "unsupported_source", "LibreOffice converts uploaded files, not URLs")
        }
        try Task.checkCancellation()
        await events(.entered(.converting))
        try await workers.convert(
            path: path,
            originalFilename: originalFilename,
            request: request,
            settings: Self.settings(for: request),
            refused: Self.refusal(originalFilename),
            cold: { try await convertCold(path: path, originalFilename: originalFilename, request: request) }
        )
    }

    /// The job's options and password as the UNO worker takes them.
    static func settings(for request: ConversionRequest) -> WorkerSettings {
        let data = LibreOfficeExport.filterData(for: request.options)
        return WorkerSettings(
            filterData: data.isEmpty ? nil : Dictionary(data.map { ($0.name, $0.value) }) { first, _ in first },
            // `false` keeps the document's own orientation, as on Gotenberg.
            landscape: request.options.landscape == true ? true : nil,
            password: request.secrets.password.flatMap { $0.isEmpty ? nil : $0 },
            clipPageRanges: request.gotenbergSemantics ? true : nil
        )
    }

    /// Words the worker's own refusal of a document.
    private static func refusal(_ originalFilename: String) -> @Sendable (WorkerReply) -> JobFailure {
        { reply in
            let kind: FailureClass = reply.kind == "rejected" ? .rejected : .transient
            return JobFailure(kind, code: reply.code ?? "conversion_failed", reply.message ?? "LibreOffice could not convert \(originalFilename)")
        }
    }

    /// A fresh LibreOffice for a document that crashed a warm slot. `soffice --convert-to`
    /// carries the export settings, but it can neither open a protected document nor turn pages:
    /// a job that needs either gets a fresh soffice with the UNO worker, used once, instead.
    private func convertCold(path: String, originalFilename: String, request: ConversionRequest) async throws {
        let settings = Self.settings(for: request)
        if settings.password != nil || settings.landscape != nil {
            return try await convertColdOverUNO(path: path, originalFilename: originalFilename, request: request, settings: settings)
        }
        try await convertColdFromCommandLine(path: path, originalFilename: originalFilename, request: request)
    }

    /// `soffice --convert-to pdf[:writer_pdf_Export:{settings}]` with a profile of its own,
    /// sealed and limited like a slot.
    private func convertColdFromCommandLine(path: String, originalFilename: String, request: ConversionRequest) async throws {
        let work = request.workDirectory + "/libreoffice-cold"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = try InputStaging.stage(path, originalFilename: originalFilename, in: work)
        let log = work + "/soffice.log"
        LibreOfficeProfile.prepare(work + "/profile", soffice: sofficePath)
        let spec = sandbox.wrap(
            ChildSpec(
                executable: sofficePath,
                arguments: [
                    "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck", "--nofirststartwizard",
                    "-env:UserInstallation=\(URL(fileURLWithPath: work + "/profile").absoluteString)",
                    "--convert-to", LibreOfficeExport.convertTo(for: request.options), "--outdir", work + "/out", input,
                ],
                environment: childEnvironment(privateDirectory: work),
                workingDirectory: work,
                stdout: .file(log),
                stderr: .file(log)
            ),
            mounts: .init(writable: [work]),
            backstops: .init(addressSpace: true, cpu: true)
        )
        // soffice exits 0 whether or not it converted: the output file says.
        _ = try await LocalFailures.runCold(spec, tool: "LibreOffice", what: originalFilename, log: log, request: request, limits: sandbox.limits)
        let output = work + "/out/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".pdf"
        try OutputCheck.verify(output, tool: "LibreOffice", diagnostics: OutputCheck.tail(ofFile: log))
        try OutputCheck.deliver(output, to: request.outputPath)
    }

    /// A one-conversion slot in the job's work directory: a fresh soffice, the password over
    /// the worker's socket (never on a command line), and nothing left running afterwards.
    private func convertColdOverUNO(path: String, originalFilename: String, request: ConversionRequest, settings: WorkerSettings) async throws {
        let work = request.workDirectory + "/libreoffice-cold"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let worker = Self.worker(
            configuration: configuration,
            scriptPath: scriptPath,
            directory: work,
            pipeName: "pdfgate-\(token)-cold-\(UUID().uuidString.prefix(8).lowercased())",
            maxConversions: 1
        )
        let once = WarmWorkerPool(tool: "LibreOffice", workers: [worker], limits: sandbox.limits)
        do {
            try await once.convert(
                path: path,
                originalFilename: originalFilename,
                request: request,
                settings: settings,
                refused: Self.refusal(originalFilename),
                cold: { throw LocalFailures.crashed("LibreOffice", originalFilename, "died in a fresh instance too", log: "") }
            )
        } catch {
            await once.shutdown()
            throw error
        }
        await once.shutdown()
    }

    func isReady() async -> Bool {
        FileManager.default.isExecutableFile(atPath: sofficePath) && FileManager.default.isExecutableFile(atPath: pythonPath)
    }

    /// Ends every slot's LibreOffice: idle ones gracefully, busy ones by SIGKILL.
    func shutdown() async {
        await workers.shutdown()
    }
}
