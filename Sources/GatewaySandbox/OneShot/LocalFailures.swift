import GatewayJobModel
import GatewayProcess

/// The failures every local converter reports the same way.
package enum LocalFailures {
    /// The code of a tool that died under a document: transient, and worth a fresh process.
    package static let crashedCode = "converter_crashed"

    /// The job's deadline passed; the tool's process group was killed.
    package static func timedOut(_ tool: String, _ what: String) -> JobFailure {
        JobFailure(.timedOut, code: "timed_out", "\(tool) did not finish converting \(what) before the job's deadline and was stopped")
    }

    /// The tool died on a signal or reported an internal failure: worth retrying.
    package static func crashed(_ tool: String, _ what: String, _ how: String, log: String) -> JobFailure {
        JobFailure(
            .transient,
            code: crashedCode,
            "\(tool) crashed while converting \(what) (it \(how))" + (log.isEmpty ? "" : ": " + OutputCheck.lastLines(log))
        )
    }

    package static func shutDown(_ tool: String) -> JobFailure {
        JobFailure.converterUnavailable("the \(tool) converter is shutting down")
    }

    /// Runs `body` in a slot of `pool`, turning the pool's own errors into job failures.
    package static func withSlot<Slot: Sendable, R: Sendable>(
        _ pool: SlotPool<Slot>,
        tool: String,
        what: String,
        deadline: ContinuousClock.Instant,
        _ body: (Slot) async throws -> R
    ) async throws -> R {
        do {
            return try await pool.withSlot(deadline: deadline, body)
        } catch is SlotPool<Slot>.TimedOut {
            throw JobFailure(.timedOut, code: "timed_out", "no \(tool) slot freed up for \(what) before the job's deadline")
        } catch is SlotPool<Slot>.ShutDown {
            throw shutDown(tool)
        }
    }
}
