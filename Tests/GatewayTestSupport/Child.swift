import Foundation
import GatewayProcess

#if canImport(Glibc)
import Glibc
#endif

/// A child process a test starts: a command run to its end, a server, a browser. Spawned the way
/// the gateway spawns its own children (GatewayProcess), not with Foundation's `Process`, whose
/// `run()` on Linux (swift-corelibs-foundation before PR 5472) reads past a buffer while listing
/// `/proc/self/fd` and crashes now and then once many descriptors are open, as they are while
/// tests run in parallel. Its exit is awaited without a thread (`ExitMonitor`).
package final class Child: Sendable {
    private let group: ProcessGroup

    /// The child's pid (also its process group's id while it is unreaped).
    package var pid: pid_t { group.id }

    /// Starts `executable` (a path, or a name looked up on PATH) with our environment plus
    /// `environment`, in a process group of its own.
    package init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: ChildStream = .null,
        stdout: ChildStream = .null,
        stderr: ChildStream = .null,
        inherited: [Int32: Int32] = [:]
    ) throws {
        let path = executable.hasPrefix("/") ? executable : try which(executable)
        let spec = ChildSpec(
            executable: path,
            arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdin: stdin,
            stdout: stdout,
            stderr: stderr,
            inherited: inherited
        )
        group = try Self.start(spec)
    }

    /// An executable the test has just written (a relocated copy of ours) is "busy" while any
    /// child forked meanwhile, by any test, still holds the writer's descriptor between its fork
    /// and its exec. That lasts moments, so a busy executable is retried for up to a second.
    private static func start(_ spec: ChildSpec) throws -> ProcessGroup {
        let deadline = ContinuousClock.now + .seconds(1)
        while true {
            do {
                return try ProcessGroup.start(spec)
            } catch  where error.code == ETXTBSY && ContinuousClock.now < deadline {
                sched_yield()
            } catch {
                throw ChildFailure(description: error.message)
            }
        }
    }

    package var isRunning: Bool { group.isRunning }

    /// Sends `signal` to the child alone, as an operator's `kill` would.
    package func signal(_ signal: Int32) { group.signalLeader(signal) }

    /// Waits for the child to end and reaps it; what it started itself keeps running.
    package func exit() async -> ChildTermination { ChildTermination(waitStatus: await group.reapWhenExited()) }

    /// `exit()` for code that is not async (benchmark loops timing a peer).
    package func exitNow() -> ChildTermination { ChildTermination(waitStatus: group.reapWhenExitedNow()) }

    /// Waits up to `limit` for the child to end; nil if it still runs then.
    package func exit(within limit: Duration) async -> ChildTermination? {
        guard await group.exited(by: .now + limit) else { return nil }
        return await exit()
    }

    /// SIGKILLs the child and everything it started, and reaps it.
    @discardableResult
    package func kill() async -> ChildTermination { ChildTermination(waitStatus: await group.killAndReap()) }

    /// `kill()` for a thread that may block (and for `deinit`s).
    @discardableResult
    package func killNow() -> ChildTermination { ChildTermination(waitStatus: group.killAndReapNow()) }
}

/// A child could not be started.
package struct ChildFailure: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

extension ChildTermination {
    /// The code it exited with, or the signal that ended it (Foundation's `terminationStatus`).
    package var status: Int32 {
        switch self {
        case .exited(let code), .signaled(let code): code
        }
    }
}
