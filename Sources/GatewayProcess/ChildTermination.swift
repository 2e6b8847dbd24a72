#if canImport(Glibc)
import Glibc
#endif

/// How a child ended, decoded from a `waitpid` status.
package enum ChildTermination: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)

    package init(waitStatus status: Int32) {
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    package var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGSEGV ? " (SIGSEGV)" : "")"
        }
    }
}

/// One of the resource limits a watchdog stops a process group at.
public enum LimitKind: String, Sendable {
    case memory, cpu, processes
}

/// Why we stopped a group ourselves; the first reason recorded wins.
package enum StopReason: Sendable, Equatable {
    case deadline, cancellation, shutdown
    /// A watchdog saw the group pass one of its resource limits.
    case limit(LimitKind)
}
