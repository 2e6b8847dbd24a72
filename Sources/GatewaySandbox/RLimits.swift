/// The rlimits a sandboxed tool starts with, the backstops behind `SandboxWatchdog` for what
/// grows faster than one of its scans, written for whichever launcher sets them: util-linux's
/// `prlimit` or `pdfgate sandbox-exec` (`SandboxExecMain`).
struct RLimits {
    /// RLIMIT_AS, soft and hard; nil for tools that reserve terabytes (Chromium, Qt WebEngine).
    var addressSpace: Int?
    /// RLIMIT_CPU's soft limit (SIGXCPU); the hard one (SIGKILL) is `cpuGrace` later. Nil for
    /// warm tools, whose CPU time adds up over many jobs.
    var cpuSeconds: Int?
    /// RLIMIT_NPROC; nil as root, whom the kernel never holds to it (the watchdog counts then).
    var processes: Int?

    /// Seconds between SIGXCPU and SIGKILL: a tool that handles the first may write its error.
    static let cpuGrace = 2

    init(limits: ResourceLimits, backstops: ConverterSandbox.Backstops, root: Bool) {
        // The cap counts mappings, not memory: leave room for what the tool maps at start.
        addressSpace = backstops.addressSpace ? limits.memoryBytes + ConverterSandbox.addressSpaceHeadroom : nil
        cpuSeconds = backstops.cpu ? limits.cpuSeconds + 5 : nil
        processes = root ? nil : limits.processes
    }

    /// `prlimit` options; a crash on a hostile document is expected, so no core file either.
    var prlimitOptions: [String] {
        var options = ["--core=0"]
        if let addressSpace { options.append("--as=\(addressSpace)") }
        if let cpuSeconds { options.append("--cpu=\(cpuSeconds):\(cpuSeconds + Self.cpuGrace)") }
        if let processes { options.append("--nproc=\(processes)") }
        return options
    }

    /// `pdfgate sandbox-exec` options (it sets no core files and the CPU grace itself).
    var helperOptions: [String] {
        var options: [String] = []
        if let addressSpace { options += ["--address-space", String(addressSpace)] }
        if let cpuSeconds { options += ["--cpu-seconds", String(cpuSeconds)] }
        if let processes { options += ["--processes", String(processes)] }
        return options
    }
}
