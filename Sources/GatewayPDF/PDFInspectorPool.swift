import Foundation
import GatewayCore
import Synchronization

/// Inspects PDFs in a small pool of long-lived `pdfgate inspect-worker` processes, each with a
/// memory cap, killed past a wall-clock limit and replaced when it dies. Poppler can loop for
/// minutes or allocate gigabytes on hostile files, and nothing in-process can stop it.
public final class PDFInspectorPool: PDFInspector {
    /// How many workers, where to find them and how far each may go.
    public struct Configuration: Sendable {
        /// Absolute path of the `pdfgate` executable, which runs the worker as a hidden subcommand.
        public var executable: String
        /// At most this many worker processes exist, and inspect concurrently.
        public var poolSize: Int
        /// Wall-clock limit for one inspection, thumbnail included; past it the worker is killed.
        public var timeout: Duration
        /// Address-space cap (RLIMIT_AS) of each worker. An idle worker (all of `pdfgate`) maps about 300 MB
        /// in a debug build (runtime, Foundation, Poppler, cairo), so caps under ~512 MiB leave little for the PDF.
        public var memoryLimitBytes: Int

        /// Defaults: the `pdfgate` that `HelperExecutable` finds, 2 workers, 30 s, 1 GiB.
        public init(
            executable: String = HelperExecutable.path,
            poolSize: Int = 2,
            timeout: Duration = .seconds(30),
            memoryLimitBytes: Int = 1 << 30
        ) {
            self.executable = executable
            self.poolSize = max(1, poolSize)
            self.timeout = timeout
            self.memoryLimitBytes = memoryLimitBytes
        }
    }

    /// The configuration the pool was created with.
    public let configuration: Configuration
    private let state = Mutex(PoolState())

    /// The permits out and the workers not in use. A permit is the right to own one process:
    /// `idle.count + leased <= poolSize` always holds, so the pool never exceeds its size.
    private struct PoolState {
        var idle: [InspectorWorker] = []
        var leased = 0
        /// Pids of workers serving a call, for tests that crash one mid-inspection.
        var busy: Set<pid_t> = []
        var waiters: [(id: UInt64, continuation: CheckedContinuation<InspectorWorker?, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var isShutDown = false
    }

    /// Workers start lazily, on the first inspections.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Inspects the PDF at `path` in a worker; see `PDFInspector`.
    public func inspect(path: String, thumbnail: ThumbnailRequest?) async throws -> PDFInfo {
        let request: [UInt8]
        do {
            request = try WorkerProtocol.encodeLine(WorkerProtocol.Request(path: path, thumbnail: thumbnail))
        } catch {
            throw InspectionError(.inspectorUnavailable, "the inspection request could not be encoded: \(error)")
        }

        let leased = try await acquire()
        var busyPID: pid_t?
        var reusable: InspectorWorker?
        defer { release(reusable, busyPID: busyPID) }

        var worker = try await ready(leased)
        var outcome = await exchange(request, with: worker, busyPID: &busyPID)
        if case .unreachable = outcome {
            // It died while idle, before seeing this file: not this file's fault, try a fresh one.
            worker = try await ready(nil)
            outcome = await exchange(request, with: worker, busyPID: &busyPID)
        }

        let name = PDFFileCheck.displayName(path)
        switch outcome {
        case .reply(let line):
            guard let response = try? WorkerProtocol.decodeLine(WorkerProtocol.Response.self, from: line),
                let result = response.result
            else {
                _ = await runBlocking { [worker] in worker.terminate() }
                throw InspectionError(.inspectorUnavailable, "the inspect worker sent a garbled answer for \(name)")
            }
            reusable = worker
            return try result.get()
        case .timedOut:
            throw InspectionError(
                .timedOut,
                "inspection of \(name) did not finish within \(configuration.timeout.inWords); the PDF is probably hostile or broken"
            )
        case .interrupted:
            throw CancellationError()
        case .died(let how), .unreachable(let how):
            throw InspectionError(
                .resourceLimit,
                "inspection of \(name) crashed the inspector, which \(how); the PDF probably needs more than its \(Self.describe(bytes: configuration.memoryLimitBytes)) memory cap or is malformed in a way that crashes Poppler"
            )
        }
    }

    /// Inspects a one-page PDF of our own: nil when a worker starts and answers, else why not.
    /// `/readyz` asks this, so a build without a working inspector never reports ready.
    public func selfCheck() async -> String? {
        let path = FileManager.default.temporaryDirectory.path + "/pdfgate-selfcheck-\(getpid())-\(UUID().uuidString.prefix(8)).pdf"
        guard FileManager.default.createFile(atPath: path, contents: Data(MinimalPDF.onePage.utf8)) else {
            return "cannot write a probe PDF in \(FileManager.default.temporaryDirectory.path)"
        }
        defer { unlink(path) }
        do {
            let info = try await inspect(path: path, thumbnail: nil)
            return info.pageCount == 1 ? nil : "the inspector read \(info.pageCount) pages from a one-page PDF"
        } catch {
            return "\(error)"
        }
    }

    /// Ends all idle workers (stdin closed, SIGKILL after 1 s) and refuses new inspections;
    /// workers busy now are ended when their inspection finishes.
    /// Runs `body` with this pool, then shuts it down whatever `body` threw: its workers are gone
    /// before the caller goes on.
    public func using<T>(_ body: (PDFInspectorPool) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await shutdown()
            return result
        } catch {
            await shutdown()
            throw error
        }
    }

    public func shutdown() async {
        let (idle, waiters) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: Self.shutDownError) }
        await withTaskGroup(of: Void.self) { group in
            for worker in idle {
                group.addTask { await runBlocking { worker.shutDown() } }
            }
        }
    }

    /// Process ids of the live workers, for tests that kill one from outside.
    package func workerPIDs() -> (idle: [pid_t], busy: [pid_t]) {
        state.withLock { ($0.idle.map(\.pid), $0.busy.sorted()) }
    }

    /// One request on `worker`, off the cooperative pool; cancelling the task kills the worker.
    private func exchange(
        _ request: [UInt8],
        with worker: InspectorWorker,
        busyPID: inout pid_t?
    ) async -> InspectorWorker.Outcome {
        let previous = busyPID
        busyPID = worker.pid
        state.withLock { state in
            if let previous { state.busy.remove(previous) }
            state.busy.insert(worker.pid)
        }
        let deadline = ContinuousClock.now + configuration.timeout
        return await withTaskCancellationHandler {
            await runBlocking { worker.exchange(request, deadline: deadline) }
        } onCancel: {
            worker.interrupt()
        }
    }

    // MARK: - Permits

    /// Waits for a permit. Returns an idle worker to reuse, or nil: start a new one.
    private func acquire() async throws -> InspectorWorker? {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Decision {
                    case resume(InspectorWorker?)
                    case fail(any Error)
                    case wait
                }
                let decision: Decision = state.withLock { state in
                    if state.isShutDown { return .fail(Self.shutDownError) }
                    // Checked under the lock, so a cancellation either sees our waiter or we see it.
                    if Task.isCancelled { return .fail(CancellationError()) }
                    if let worker = state.idle.popLast() {
                        state.leased += 1
                        return .resume(worker)
                    }
                    if state.idle.count + state.leased < configuration.poolSize {
                        state.leased += 1
                        return .resume(nil)
                    }
                    state.waiters.append((id, continuation))
                    return .wait
                }
                switch decision {
                case .resume(let worker): continuation.resume(returning: worker)
                case .fail(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, with the worker when it can serve again; a waiter gets it directly.
    private func release(_ worker: InspectorWorker?, busyPID: pid_t?) {
        enum Handoff {
            case waiter(CheckedContinuation<InspectorWorker?, any Error>)
            case retire(InspectorWorker)
            case none
        }
        let handoff: Handoff = state.withLock { state in
            if let busyPID { state.busy.remove(busyPID) }
            if state.isShutDown {
                state.leased -= 1
                return worker.map(Handoff.retire) ?? .none
            }
            if !state.waiters.isEmpty {
                return .waiter(state.waiters.removeFirst().continuation)
            }
            state.leased -= 1
            if let worker { state.idle.append(worker) }
            return .none
        }
        switch handoff {
        case .waiter(let continuation): continuation.resume(returning: worker)
        case .retire(let worker): Thread.detachNewThread { worker.shutDown() }
        case .none: break
        }
    }

    /// A live worker for this permit: the leased one if it survived idling, else a new one.
    /// On failure the permit is returned by the caller's `defer`.
    private func ready(_ leased: InspectorWorker?) async throws -> InspectorWorker {
        // A zero-timeout poll never blocks, so the common case needs no thread hop.
        if let leased, leased.isHealthy() { return leased }
        let configuration = configuration
        let result: Result<InspectorWorker, InspectionError> = await runBlocking {
            leased?.terminate()
            do throws(InspectionError) {
                return .success(
                    try InspectorWorker.spawn(
                        executable: configuration.executable,
                        memoryLimitBytes: configuration.memoryLimitBytes
                    )
                )
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: - Helpers

    private static let shutDownError = InspectionError(.inspectorUnavailable, "the PDF inspector has been shut down")

    static func describe(bytes: Int) -> String {
        let mebibytes = Double(bytes) / Double(1 << 20)
        if mebibytes >= 1024, mebibytes.truncatingRemainder(dividingBy: 1024) == 0 {
            return "\(Int(mebibytes / 1024)) GiB"
        }
        return "\(Int(mebibytes.rounded())) MiB"
    }
}
