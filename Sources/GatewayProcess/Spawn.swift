import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `posix_spawn` with what every child of the gateway needs: its streams and inherited
/// descriptors, nothing else of ours open, default signal handling, and its own process group.
enum Spawn {
    static func spawn(_ spec: ChildSpec, processGroup: pid_t) throws(SpawnFailure) -> pid_t {
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
        // Descriptors the rest of the gateway opened without CLOEXEC stay out of children,
        // which may live for hours and would otherwise hold sockets and pipes open.
        let firstClosed = (spec.inherited.keys.max() ?? STDERR_FILENO) + 1
        if let addCloseFrom = Extensions.addCloseFrom { _ = addCloseFrom(&actions, firstClosed) }
        if let directory = spec.workingDirectory, let addChdir = Extensions.addChdir {
            _ = directory.withCString { addChdir(&actions, $0) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, processGroup)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // The gateway ignores SIGPIPE (SwiftNIO does) and may ignore others; children get the
        // default behaviour, so a worker whose gateway vanished dies on its next write.
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
            throw SpawnFailure(message: "could not start \(spec.executable): \(String(cString: strerror(status)))", code: status)
        }
        return pid
    }

    /// glibc's posix_spawn extensions (2.29+, 2.34+) are not in Swift's Glibc module, and this
    /// target has no C shim of its own, so they are looked up at run time; without them we skip
    /// the action.
    private enum Extensions {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

        static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: AddCloseFrom.self)
        }
        static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
            unsafeBitCast($0, to: AddChdir.self)
        }
    }
}
