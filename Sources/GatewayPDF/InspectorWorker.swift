import Foundation
import GatewayCore
import GatewayLibraryModel
import GatewayProcess
import Synchronization

/// One `pdfgate inspect-worker` child process and the socket it answers on (a `LineWorker`).
///
/// A worker serves one call at a time (its slot guarantees it); only `interrupt()` may be called
/// concurrently, from a cancellation handler.
final class InspectorWorker: Sendable {
    /// How a request ended.
    enum Outcome: Sendable {
        case reply([UInt8])
        /// The deadline passed; the worker was killed and reaped.
        case timedOut
        /// `interrupt()` was called; the worker was killed and reaped.
        case interrupted
        /// The worker died on its own; it was reaped. The text says how, e.g. "killed by SIGABRT".
        case died(String)
        /// The worker was already gone when the request was sent; it was reaped.
        case unreachable(String)
    }

    private let worker: LineWorker
    private let interrupted = Mutex(false)

    private init(worker: LineWorker) {
        self.worker = worker
    }

    var pid: pid_t { worker.group.id }

    /// Starts a worker with its memory cap; its stderr goes to /dev/null (Poppler is chatty about
    /// every broken PDF, and an undrained pipe would eventually block it).
    static func spawn(executable: String, memoryLimitBytes: Int, niceness: Int = 0) async throws(InspectionError) -> InspectorWorker {
        let arguments = [
            HelperExecutable.Subcommand.inspectWorker.rawValue, "--memory-limit-bytes", String(memoryLimitBytes), "--parent-pid",
            String(getpid()), "--nice", String(niceness),
        ]
        // A crash is an expected end for a worker on a hostile PDF. Swift's backtracer would
        // catch it, spin for minutes and hold the memory; the plain signal is what we want.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        do throws(SpawnFailure) {
            let worker = try await LineWorker.start(maxLineBytes: WorkerProtocol.maxLineBytes) { socket in
                ChildSpec(
                    executable: executable,
                    arguments: arguments,
                    environment: environment,
                    stdin: .descriptor(socket),
                    stdout: .descriptor(socket)
                )
            }
            return InspectorWorker(worker: worker)
        } catch {
            throw unavailable(executable, errno: error.code)
        }
    }

    /// An idle worker has nothing to say; anything it said, or a hang-up, means it died or is broken.
    func isHealthy() -> Bool { worker.isIdleHealthy }

    /// Sends one request line and waits for one reply line until `deadline`.
    func exchange(_ request: [UInt8], deadline: ContinuousClock.Instant) async -> Outcome {
        let reply = await worker.exchange(request, until: deadline)
        if interrupted.withLock({ $0 }) {
            await terminate()
            return .interrupted
        }
        switch reply {
        case .line(let line): return .reply(line)
        case .timedOut:
            await terminate()
            return .timedOut
        case .closed: return .died(await terminate())
        case .notSent: return .unreachable(await terminate())
        }
    }

    /// Kills the worker now, from any thread; the waiting `exchange` then returns `.interrupted`.
    func interrupt() {
        interrupted.withLock { $0 = true }
        worker.group.stop(.cancellation)
    }

    /// Kills and reaps the worker; returns how it ended.
    @discardableResult
    func terminate() async -> String {
        Self.describe(status: await worker.terminate())
    }

    /// Closes the worker's stdin so it exits on its own; kills it if it has not after `grace`.
    func shutDown(grace: Duration = .seconds(1)) async {
        await worker.end(saying: nil, grace: grace)
    }

    /// The POSIX W* macros are not imported into Swift; this decodes the Linux status layout.
    static func describe(status: Int32) -> String {
        if status == -1 { return "vanished" }
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        return "was killed by \(signalName(signal))"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGABRT: "SIGABRT (usually a failed allocation under the memory cap)"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGKILL: "SIGKILL"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGTRAP: "SIGTRAP"
        default: "signal \(signal)"
        }
    }

    private static func unavailable(_ executable: String, errno code: Int32) -> InspectionError {
        InspectionError(
            .inspectorUnavailable,
            "the PDF inspector helper could not be started (\(executable): \(String(cString: strerror(code)))); the inspector runs as `pdfgate inspect-worker`: set PDFGATE_EXECUTABLE to the pdfgate binary"
        )
    }
}
