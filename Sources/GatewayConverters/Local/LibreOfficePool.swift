import Foundation
import GatewayCore
import Synchronization

/// Office documents → PDF through a bounded set of warm LibreOffice slots (DESIGN §4), with a
/// cold, fresh LibreOffice as the safety net for a document that crashes a warm one.
final class LibreOfficePool: Converter {
    let name = "local.libreoffice"
    let slots: SlotPool<WarmWorker>
    private let sofficePath: String
    private let pythonPath: String
    private let sandbox: ConverterSandbox
    /// Jobs whose document crashed a warm slot: their later attempts go straight to a cold
    /// LibreOffice, so one document never takes more than one slot restart with it.
    private let crashedWarm = Mutex<[UUID]>([])

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
        slots = SlotPool(
            (0..<max(1, configuration.libreOfficeSlots)).map { index in
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
        if goesCold(request.jobID) {
            return try await convertCold(path: path, originalFilename: originalFilename, request: request)
        }
        do {
            try await convertWarm(path: path, originalFilename: originalFilename, request: request)
        } catch let failure as JobFailure where failure.code == LocalFailures.crashedCode && ContinuousClock.now < request.deadline {
            // A crash is the tool's fault, not the document's: one more try, in a fresh LibreOffice.
            crashedWarm.withLock { jobs in
                jobs.append(request.jobID)
                if jobs.count > 1000 { jobs.removeFirst(jobs.count - 1000) }
            }
            try await convertCold(path: path, originalFilename: originalFilename, request: request)
        }
    }

    /// Whether `jobID`'s document crashed a warm slot, so its conversions run cold.
    func goesCold(_ jobID: UUID) -> Bool {
        crashedWarm.withLock { $0.contains(jobID) }
    }

    /// In a warm slot: the input goes into the slot's exchange directory, the PDF comes out of it.
    private func convertWarm(path: String, originalFilename: String, request: ConversionRequest) async throws {
        let deadline = request.deadline
        try await LocalFailures.withSlot(slots, tool: "LibreOffice", what: originalFilename, deadline: deadline) { slot in
            let exchange = slot.exchangeDirectory
            try? FileManager.default.removeItem(atPath: exchange)
            defer { try? FileManager.default.removeItem(atPath: exchange) }
            let input = try InputStaging.stage(path, originalFilename: originalFilename, in: exchange)
            let output = exchange + "/output.pdf"
            slot.prepare()
            let outcome = await withTaskCancellationHandler {
                await runBlocking { slot.convert(input: input, output: output, name: originalFilename, deadline: deadline) }
            } onCancel: {
                slot.interrupt()
            }
            switch outcome {
            case .converted:
                try OutputCheck.verify(output, tool: "LibreOffice")
                try OutputCheck.deliver(output, to: request.outputPath)
            case .refused(let reply):
                let kind: FailureClass = reply.kind == "rejected" ? .rejected : .transient
                throw JobFailure(kind, code: reply.code ?? "conversion_failed", reply.message ?? "LibreOffice could not convert \(originalFilename)")
            case .failed(let failure):
                throw failure
            case .timedOut:
                throw LocalFailures.timedOut("LibreOffice", originalFilename)
            case .limitExceeded(let kind):
                throw sandbox.limits.failure(kind, tool: "LibreOffice", what: originalFilename)
            case .interrupted:
                if Task.isCancelled { throw CancellationError() }
                throw LocalFailures.shutDown("LibreOffice")
            }
        }
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
        let outcome: OneShotOutcome
        do throws(SpawnFailure) {
            outcome = try await runOneShot(spec, deadline: request.deadline, limits: sandbox.limits)
        } catch {
            throw JobFailure(.transient, code: "converter_unavailable", "LibreOffice could not be started: \(error.message)")
        }
        let diagnostics = OutputCheck.tail(ofFile: log)
        switch outcome {
        case .cancelled: throw CancellationError()
        case .timedOut: throw LocalFailures.timedOut("LibreOffice", originalFilename)
        case .limitExceeded(let kind): throw sandbox.limits.failure(kind, tool: "LibreOffice", what: originalFilename)
        case .finished(.signaled(let signal)):
            throw LocalFailures.crashed("LibreOffice", originalFilename, "was killed by signal \(signal)", log: diagnostics)
        case .finished(.exited):
            let output = work + "/out/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".pdf"
            try OutputCheck.verify(output, tool: "LibreOffice", diagnostics: diagnostics)
            try OutputCheck.deliver(output, to: request.outputPath)
        }
    }

    func isReady() async -> Bool {
        FileManager.default.isExecutableFile(atPath: sofficePath) && FileManager.default.isExecutableFile(atPath: pythonPath)
    }

    /// Ends every slot's LibreOffice: idle ones gracefully, busy ones by SIGKILL.
    func shutdown() async {
        _ = slots.shutDown()
        let all = slots.slots
        await runBlocking {
            // Each slot waits up to a few seconds for a clean exit; do them side by side.
            DispatchQueue.concurrentPerform(iterations: all.count) { all[$0].shutDown() }
        }
    }
}
