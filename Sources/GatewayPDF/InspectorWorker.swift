import CPoppler
import Foundation
import GatewayCore
import Synchronization

/// One `pdfgate inspect-worker` child process and the socket it answers on.
///
/// Every method blocks: call them from a dedicated thread, never from the cooperative pool.
/// A worker serves one call at a time (the pool guarantees it); only `interrupt()` may be called
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

    let pid: pid_t
    /// Our end of a socketpair, used both ways. A socket rather than pipes so writing to a dead
    /// worker fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in the gateway.
    private let socket: Int32
    private let state = Mutex(State())

    private struct State {
        var interrupted = false
        /// Set before waitpid: from then on the pid may be reused and must never be signalled.
        var reaping = false
        var socketClosed = false
    }

    private init(pid: pid_t, socket: Int32) {
        self.pid = pid
        self.socket = socket
    }

    deinit {
        let needsReap = state.withLock { state in
            defer { state.reaping = true }
            return !state.reaping
        }
        if needsReap {
            kill(pid, SIGKILL)
            _ = Self.waitForExit(pid)
        }
        if !state.withLock({ $0.socketClosed }) { close(socket) }
    }

    /// Starts a worker with its memory cap; its stderr goes to /dev/null (Poppler is chatty about
    /// every broken PDF, and an undrained pipe would eventually block it).
    static func spawn(executable: String, memoryLimitBytes: Int) throws(InspectionError) -> InspectorWorker {
        var pair: [Int32] = [-1, -1]
        // CLOEXEC from birth: a child spawned concurrently elsewhere in the gateway must not
        // inherit our end, or the worker would never see EOF when we close it.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw unavailable(executable, errno: errno)
        }
        let (parentEnd, childEnd) = (pair[0], pair[1])
        defer { close(childEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childEnd, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, childEnd, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        // Whatever else the gateway has open without CLOEXEC stays out of the worker.
        pdfgate_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // The gateway may ignore SIGPIPE; the worker should die if the gateway vanishes.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = [
            executable, HelperExecutable.Subcommand.inspectWorker.rawValue, "--memory-limit-bytes", String(memoryLimitBytes), "--parent-pid",
            String(getpid()),
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // A crash is an expected end for a worker on a hostile PDF. Swift's backtracer would
        // catch it, spin for minutes and hold the memory; the plain signal is what we want.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
        guard status == 0 else {
            close(parentEnd)
            throw unavailable(executable, errno: status)
        }
        return InspectorWorker(pid: pid, socket: parentEnd)
    }

    /// An idle worker has nothing to say; readable data or a hang-up means it died or is broken.
    func isHealthy() -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Sends one request line and waits for one reply line until `deadline`.
    func exchange(_ request: [UInt8], deadline: ContinuousClock.Instant) -> Outcome {
        let outcome = sendAndReceive(request, deadline: deadline)
        if state.withLock({ $0.interrupted }) {
            terminate()
            return .interrupted
        }
        switch outcome {
        case .reply:
            return outcome
        case .timedOut, .interrupted:
            terminate()
            return outcome
        case .died:
            return .died(terminate())
        case .unreachable:
            return .unreachable(terminate())
        }
    }

    /// Kills the worker now, from any thread; the blocked `exchange` then returns `.interrupted`.
    func interrupt() {
        state.withLock { state in
            state.interrupted = true
            if !state.reaping { kill(pid, SIGKILL) }
        }
    }

    /// Kills and reaps the worker; returns how it ended.
    @discardableResult
    func terminate() -> String {
        state.withLock { state in
            state.reaping = true
            kill(pid, SIGKILL)
        }
        closeSocket()
        return Self.describe(status: Self.waitForExit(pid))
    }

    /// Closes the worker's stdin so it exits on its own; kills it if it has not after `grace`.
    func shutDown(grace: Duration = .seconds(1)) {
        state.withLock { $0.reaping = true }
        closeSocket()
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = Self.waitForExit(pid)
    }

    private func closeSocket() {
        let shouldClose = state.withLock { state in
            defer { state.socketClosed = true }
            return !state.socketClosed
        }
        if shouldClose { close(socket) }
    }

    private func sendAndReceive(_ request: [UInt8], deadline: ContinuousClock.Instant) -> Outcome {
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(socket, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return .unreachable("")
            }
            sent += n
        }

        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return .timedOut }
            let milliseconds = Int32(clamping: remaining.inMilliseconds + 1)
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno != EINTR { return .died("") }
            if ready <= 0 { continue }

            let n = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .died("")
            }
            if n == 0 { return .died("") }
            line.append(contentsOf: chunk[..<n])
            if let newline = line.firstIndex(of: UInt8(ascii: "\n")) {
                return .reply(Array(line[..<newline]))
            }
            if line.count > WorkerProtocol.maxLineBytes { return .died("") }
        }
    }

    private static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return status
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
