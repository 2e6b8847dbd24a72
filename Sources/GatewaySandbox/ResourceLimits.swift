import GatewayJobModel
import GatewayProcess

/// What one converter sandbox may use: enforced by `SandboxWatchdog` (which names the limit
/// that was hit) with rlimits as a backstop inside the sandbox.
public struct ResourceLimits: Sendable, Equatable {
    /// Private memory of all the sandbox's processes together (resident, not shared with files).
    public var memoryBytes: Int
    /// CPU time one conversion may take, summed over the sandbox's processes.
    public var cpuSeconds: Int
    /// Processes alive in the sandbox at once (a converter's helpers and renderers included).
    public var processes: Int

    /// Generous for real documents on a small machine; a document past them is hostile or broken.
    public init(memoryBytes: Int = 2 << 30, cpuSeconds: Int = 120, processes: Int = 64) {
        self.memoryBytes = memoryBytes
        self.cpuSeconds = cpuSeconds
        self.processes = processes
    }

    /// One of the three, for a failure that names it (the process module's, which stops groups at them).
    public typealias Kind = LimitKind

    /// The stable failure for a conversion stopped at a limit: the document's fault, not retried.
    package func failure(_ kind: Kind, tool: String, what: String) -> JobFailure {
        let limit =
            switch kind {
            case .memory: "memory limit of \(memoryBytes >> 20) MiB"
            case .cpu: "CPU-time limit of \(cpuSeconds) s"
            case .processes: "process limit of \(processes)"
            }
        return JobFailure(
            .rejected,
            code: "resource_limit",
            "\(tool) was stopped converting \(what): it went past the \(limit) per conversion; the document is too large or hostile (an operator can raise the limit)"
        )
    }
}
