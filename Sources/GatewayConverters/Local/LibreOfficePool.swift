import Foundation
import GatewayCore

/// Office documents → PDF through a bounded set of warm LibreOffice slots (DESIGN §4), with a
/// cold, fresh LibreOffice as the safety net for a document that crashes a warm one.
final class LibreOfficePool: Converter {
    let name = "local.libreoffice"
    let workers: WarmWorkerPool
    private let sofficePath: String
    private let pythonPath: String
    private let sandbox: ConverterSandbox

    /// Slots are created here but start LibreOffice lazily, on their first conversion.
    /// `directory` must be private to this pool; the UNO worker script is written into it.
    init(configuration: LocalConverter.Configuration, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scriptPath = directory + "/" + UnoWorkerScript.fileName
        try UnoWorkerScript.source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // Pipe names are global to the machine: make ours unique per pool.
        let token = "\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        sofficePath = configuration.sofficePath
        pythonPath = configuration.pythonPath
        sandbox = configuration.sandbox
        let workers = (0..<max(1, configuration.libreOfficeSlots)).map { index in
            let directory = directory + "/slot-\(index)"
            return WarmWorker(
                settings: .init(
                    tool: "LibreOffice",
                    directory: directory,
                    maxConversions: max(1, configuration.maxConversionsPerLibreOfficeInstance),
                    startTimeout: configuration.libreOfficeStartTimeout,
                    sandbox: configuration.sandbox,
                    logs: [directory + "/worker.log", directory + "/soffice.log"],
                    launch: { socket in
                        Self.launch(
                            configuration: configuration,
                            scriptPath: scriptPath,
                            directory: directory,
                            pipeName: "pdfgate-\(token)-slot-\(index)",
                            socket: socket
                        )
                    },
                    // A profile left half-written by a killed soffice can keep it from starting: begin anew.
                    afterFailedStart: { try? FileManager.default.removeItem(atPath: directory + "/profile") }
                )
            )
        }
        self.workers = WarmWorkerPool(tool: "LibreOffice", workers: workers, limits: configuration.sandbox.limits)
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
        LibreOfficeProfile.prepare(profile)
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

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) -> Void) async throws {
        guard case .file(let path, let originalFilename) = request.source else {
            throw JobFailure(.rejected, code: "unsupported_source", "LibreOffice converts uploaded files, not URLs")
        }
        try Task.checkCancellation()
        events(.entered(.converting))
        try await workers.convert(
            path: path,
            originalFilename: originalFilename,
            request: request,
            refused: { reply in
                let kind: FailureClass = reply.kind == "rejected" ? .rejected : .transient
                return JobFailure(kind, code: reply.code ?? "conversion_failed", reply.message ?? "LibreOffice could not convert \(originalFilename)")
            },
            cold: { try await convertCold(path: path, originalFilename: originalFilename, request: request) }
        )
    }

    /// `soffice --convert-to pdf` with a profile of its own, sealed and limited like a slot.
    private func convertCold(path: String, originalFilename: String, request: ConversionRequest) async throws {
        let work = request.workDirectory + "/libreoffice-cold"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = try InputStaging.stage(path, originalFilename: originalFilename, in: work)
        let log = work + "/soffice.log"
        LibreOfficeProfile.prepare(work + "/profile")
        let spec = sandbox.wrap(
            ChildSpec(
                executable: sofficePath,
                arguments: [
                    "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck", "--nofirststartwizard",
                    "-env:UserInstallation=\(URL(fileURLWithPath: work + "/profile").absoluteString)",
                    "--convert-to", "pdf", "--outdir", work + "/out", input,
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

    func isReady() async -> Bool {
        FileManager.default.isExecutableFile(atPath: sofficePath) && FileManager.default.isExecutableFile(atPath: pythonPath)
    }

    /// Ends every slot's LibreOffice: idle ones gracefully, busy ones by SIGKILL.
    func shutdown() async {
        await workers.shutdown()
    }
}
