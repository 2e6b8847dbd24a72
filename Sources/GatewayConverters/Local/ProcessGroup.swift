import Foundation
import Synchronization

/// Where a child's standard stream goes.
enum ChildStream: Sendable {
    case null
    /// Created or truncated; the tail is read back for error messages.
    case file(String)
    /// Duplicated onto the stream; the caller keeps (and closes) its descriptor.
    case descriptor(Int32)
}

/// Everything needed to start one child process.
struct ChildSpec: Sendable {
    var executable: String
    var arguments: [String]
    /// The complete environment of the child.
    var environment: [String: String]
    var workingDirectory: String?
    var stdin: ChildStream = .null
    var stdout: ChildStream = .null
    var stderr: ChildStream = .null
    /// Further descriptors the child gets, by number in the child → ours; everything else above
    /// stderr is closed.
    var inherited: [Int32: Int32] = [:]
}

/// A child could not be started at all.
struct SpawnFailure: Error, Sendable {
    var message: String
}

/// How a child ended, decoded from a `waitpid` status.
enum ChildTermination: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)

    init(waitStatus status: Int32) {
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGSEGV ? " (SIGSEGV)" : "")"
        }
    }
}

/// Why we stopped a group ourselves; the first reason recorded wins.
enum StopReason: Sendable, Equatable {
    case deadline, cancellation, shutdown
    /// The watchdog saw the group pass one of its resource limits.
    case limit(ResourceLimits.Kind)
}

/// A connected pair of Unix stream sockets, close-on-exec from birth: a converter spawned
/// concurrently must not inherit either end (the spawn hands the child its end by number).
package func socketPair() -> (ours: Int32, theirs: Int32)? {
    var pair: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
    return (pair[0], pair[1])
}

/// A process group we started: a leader in a group of its own, plus members that joined it.
///
/// Converters fork helpers of their own (oosplash → soffice.bin, Chromium's zygote and renderers,
/// Calibre's worker pool), so only signalling the whole group reliably stops them. The group id
/// is the leader's pid and is only ever signalled while the leader is unreaped: until then the
/// kernel cannot hand that id to anyone else.
final class ProcessGroup: Sendable {
    /// The leader's pid, which is also the group id.
    let id: pid_t
    private let state: Mutex<State>

    private struct State {
        var members: [pid_t]
        var leaderReaped = false
        var stopReason: StopReason?
    }

    private init(leader: pid_t) {
        id = leader
        state = Mutex(State(members: [leader]))
    }

    deinit {
        // Normally reaped by `killAndReap`; this only guards against leaking a live group.
        if !state.withLock({ $0.leaderReaped }) { killAndReap() }
    }

    /// Starts `spec` as the leader of a new process group.
    static func start(_ spec: ChildSpec) throws(SpawnFailure) -> ProcessGroup {
        ProcessGroup(leader: try spawn(spec, processGroup: 0))
    }

    /// Starts `spec` inside this group; returns its pid.
    func add(_ spec: ChildSpec) throws(SpawnFailure) -> pid_t {
        let pid = try Self.spawn(spec, processGroup: id)
        state.withLock { $0.members.append(pid) }
        return pid
    }

    /// SIGKILLs every process in the group (helpers included), recording why; safe from any thread.
    func stop(_ reason: StopReason) {
        state.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
            if !state.leaderReaped { kill(-id, SIGKILL) }
        }
    }

    /// The first reason `stop` was called with, if it was.
    var stopReason: StopReason? { state.withLock { $0.stopReason } }

    /// Whether `pid` (one of ours) has not exited yet. Non-blocking and non-reaping.
    func isRunning(_ pid: pid_t) -> Bool {
        if pid == id, state.withLock({ $0.leaderReaped }) { return false }
        var info = siginfo_t()
        // With WNOHANG and nothing to report, Linux zero-fills si_signo (POSIX TC1 2013).
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return result == 0 && info.si_signo == 0
    }

    /// Blocks until the leader exits, without reaping it (so the group id stays ours).
    /// Call from a dedicated thread.
    func waitForLeaderExit() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(id), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
    }

    /// Kills whatever is left of the group and reaps every process we started; returns the
    /// leader's wait status. Blocks briefly (SIGKILL is prompt); call from a dedicated thread.
    @discardableResult
    func killAndReap() -> Int32 {
        let members = state.withLock { state -> [pid_t] in
            if !state.leaderReaped { kill(-id, SIGKILL) }
            // From here on the id may be recycled: never signal it again.
            state.leaderReaped = true
            defer { state.members = [] }
            return state.members
        }
        var leaderStatus: Int32 = 0
        for pid in members.reversed() {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            if pid == id { leaderStatus = status }
        }
        return leaderStatus
    }

    // MARK: - posix_spawn

    private static func spawn(_ spec: ChildSpec, processGroup: pid_t) throws(SpawnFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(spec.stdin, STDIN_FILENO), (spec.stdout, STDOUT_FILENO), (spec.stderr, STDERR_FILENO)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        for (target, source) in spec.inherited { posix_spawn_file_actions_adddup2(&actions, source, target) }
        // Descriptors the rest of the gateway opened without CLOEXEC stay out of converters,
        // which may live for hours and would otherwise hold sockets and pipes open.
        let firstClosed = (spec.inherited.keys.max() ?? STDERR_FILENO) + 1
        if let addCloseFrom = SpawnExtensions.addCloseFrom { _ = addCloseFrom(&actions, firstClosed) }
        if let directory = spec.workingDirectory, let addChdir = SpawnExtensions.addChdir {
            _ = directory.withCString { addChdir(&actions, $0) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, processGroup)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // The gateway may ignore SIGPIPE and friends; converters should get the default behaviour.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var argv: [UnsafeMutablePointer<CChar>?] = ([spec.executable] + spec.arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var envp: [UnsafeMutablePointer<CChar>?] = spec.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }

        var pid: pid_t = 0
        let status = posix_spawn(&pid, spec.executable, &actions, &attributes, &argv, &envp)
        guard status == 0 else {
            throw SpawnFailure(message: "could not start \(spec.executable): \(String(cString: strerror(status)))")
        }
        return pid
    }
}

/// glibc's posix_spawn extensions (2.29+, 2.34+) are not in Swift's Glibc module, and this target
/// has no C shim of its own, so they are looked up at run time; without them we skip the action.
private enum SpawnExtensions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }
    static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }
}
