import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox
import Synchronization

/// A tool's warm workers with its cold command behind them (LibreOffice, Calibre): a document
/// converts in a warm worker; one that crashes a worker gets one more try in the cold tool (a
/// crash is the tool's fault, not the document's), and that job's later attempts go cold
/// straight away, so one document never takes more than one worker restart with it.
final class WarmWorkerPool: Sendable {
    let tool: String
    let slots: SlotPool<WarmWorker>
    private let limits: ResourceLimits
    /// Jobs whose document crashed a warm worker (the latest thousand).
    private let crashedWarm = Mutex<[UUID]>([])

    init(tool: String, workers: [WarmWorker], limits: ResourceLimits) {
        self.tool = tool
        self.limits = limits
        slots = SlotPool(workers)
    }

    /// Whether `jobID`'s document crashed a warm worker, so its conversions run cold.
    func goesCold(_ jobID: UUID) -> Bool {
        crashedWarm.withLock { $0.contains(jobID) }
    }

    /// Converts the file in a warm worker (with the tool's `settings`), else in `cold`.
    /// `refused` words the worker's own refusal of a document.
    func convert(
        path: String,
        originalFilename: String,
        request: ConversionRequest,
        settings: WorkerSettings = WorkerSettings(),
        refused: @escaping @Sendable (WorkerReply) -> JobFailure,
        cold: () async throws -> Void
    ) async throws {
        if goesCold(request.jobID) { return try await cold() }
        do {
            try await convertWarm(path: path, originalFilename: originalFilename, request: request, settings: settings, refused: refused)
        } catch let failure as JobFailure where failure.code == LocalFailures.crashedCode && ContinuousClock.now < request.deadline {
            sendCold(request.jobID)
            try await cold()
        }
    }

    /// From now on `jobID`'s conversions skip the warm workers.
    func sendCold(_ jobID: UUID) {
        crashedWarm.withLock { jobs in
            jobs.append(jobID)
            if jobs.count > 1000 { jobs.removeFirst(jobs.count - 1000) }
        }
    }

    /// The input goes into the worker's exchange directory, the PDF comes out of it.
    private func convertWarm(
        path: String,
        originalFilename: String,
        request: ConversionRequest,
        settings: WorkerSettings,
        refused: (WorkerReply) -> JobFailure
    ) async throws {
        let (tool, limits, deadline) = (tool, limits, request.deadline)
        try await LocalFailures.withSlot(slots, tool: tool, what: originalFilename, deadline: deadline) { worker in
            let exchange = worker.exchangeDirectory
            try? FileManager.default.removeItem(atPath: exchange)
            defer { try? FileManager.default.removeItem(atPath: exchange) }
            let input = try InputStaging.stage(path, originalFilename: originalFilename, in: exchange)
            let output = exchange + "/output.pdf"
            worker.prepare()
            let outcome = await withTaskCancellationHandler {
                await worker.convert(input: input, output: output, name: originalFilename, options: settings, deadline: deadline)
            } onCancel: {
                worker.interrupt()
            }
            switch outcome {
            case .converted:
                try OutputCheck.verify(output, tool: tool, diagnostics: worker.diagnostics())
                try OutputCheck.deliver(output, to: request.outputPath)
            case .refused(let reply):
                throw refused(reply)
            case .failed(let failure):
                throw failure
            case .timedOut:
                throw LocalFailures.timedOut(tool, originalFilename)
            case .limitExceeded(let kind):
                throw limits.failure(kind, tool: tool, what: originalFilename)
            case .interrupted:
                if Task.isCancelled { throw CancellationError() }
                throw LocalFailures.shutDown(tool)
            }
        }
    }

    /// Ends every worker: idle ones gracefully, busy ones by SIGKILL, side by side (each may
    /// wait a few seconds for a clean exit).
    func shutdown() async {
        _ = slots.shutDown()
        await withTaskGroup(of: Void.self) { group in
            for worker in slots.slots { group.addTask { await worker.shutDown() } }
        }
    }
}

extension LocalFailures {
    /// Runs a cold tool to its end and turns what happened into a failure, as every cold
    /// fallback does; returns the exit status for the caller's own reading.
    static func runCold(
        _ spec: ChildSpec,
        tool: String,
        what: String,
        log: String,
        request: ConversionRequest,
        limits: ResourceLimits
    )
        async throws -> Int32
    {
        let outcome: OneShotOutcome
        do throws(SpawnFailure) {
            outcome = try await runOneShot(spec, deadline: request.deadline, limits: limits)
        } catch {
            throw JobFailure.converterUnavailable("\(tool) could not be started: \(error.message)")
        }
        switch outcome {
        case .cancelled: throw CancellationError()
        case .timedOut: throw timedOut(tool, what)
        case .limitExceeded(let kind): throw limits.failure(kind, tool: tool, what: what)
        case .finished(.signaled(let signal)): throw crashed(tool, what, "was killed by signal \(signal)", log: OutputCheck.tail(ofFile: log))
        case .finished(.exited(let status)): return status
        }
    }
}
