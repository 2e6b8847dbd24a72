import Foundation
import GatewayCore
import Synchronization

/// A warm tool behind a worker that speaks one JSON line each way on a socket (its stdin and
/// stdout): LibreOffice with the Python UNO worker beside it, Calibre's Python with its imports
/// and Qt WebEngine loaded. Both processes run in one process group and one sandbox; the sandbox
/// sees the worker's directory and nothing else of ours: each conversion's input is put in its
/// exchange directory and the PDF taken out of it.
///
/// A cold tool spends most of its time starting up, so the worker keeps running between
/// conversions and is restarted after `maxConversions` or as soon as it misbehaves (crash,
/// hang, deadline).
///
/// The blocking methods must run on a dedicated thread. The pool leases a worker to one caller
/// at a time; only `interrupt()` and `shutDown()` may be called concurrently with a conversion.
final class WarmWorker: Sendable {
    /// How to start the worker and where it lives.
    struct Settings: Sendable {
        /// The tool's name in messages ("LibreOffice").
        var tool: String
        /// Private to this worker: profiles, HOME, TMPDIR, logs and the exchange directory.
        var directory: String
        var maxConversions: Int
        var startTimeout: Duration
        var sandbox: ConverterSandbox
        /// The logs whose tails explain a crash, most telling first.
        var logs: [String]
        /// The sealed command, given the socket to use as its stdin and stdout. It writes one
        /// `{"ok": true}` line once ready.
        var launch: @Sendable (_ socket: Int32) -> ChildSpec
        /// Run after a start failed (a half-written profile can keep the next start failing too).
        var afterFailedStart: @Sendable () -> Void = {}
    }

    /// How one conversion ended.
    enum Outcome: Sendable {
        case converted
        /// The worker refused the document, in its words.
        case refused(WorkerReply)
        case failed(JobFailure)
        case timedOut
        /// `interrupt()` or `shutDown()` stopped it.
        case interrupted
        /// The watchdog stopped it at one of the sandbox's limits.
        case limitExceeded(ResourceLimits.Kind)
    }

    let settings: Settings
    private let life = WarmLife<Instance>()

    /// A running worker (and tool). Whoever takes it out of `life` reaps it.
    private final class Instance: WarmInstance {
        /// Led by the sandbox (or, unsandboxed, by the worker's launcher).
        let group: ProcessGroup
        /// Our end of a socketpair serving as the worker's stdin and stdout: a socket so writing to
        /// a dead worker fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in the gateway.
        let socket: Int32
        let conversions = Atomic<Int>(0)

        init(group: ProcessGroup, socket: Int32) {
            self.group = group
            self.socket = socket
        }

        deinit { close(socket) }

        /// The leader ends when the worker does (a sandbox ends with its command); a dead tool
        /// under a live worker shows in the next ping.
        var isAlive: Bool { group.isRunning(group.id) }
    }

    init(settings: Settings) {
        self.settings = settings
    }

    /// Where one conversion's input and output live while the worker works on it.
    var exchangeDirectory: String { settings.directory + "/exchange" }

    // MARK: - Called from any thread

    /// Clears a stale interruption; call before installing the cancellation handler.
    func prepare() { life.prepare() }

    /// Kills the running worker now; the blocked conversion returns `.interrupted` and the
    /// worker starts afresh on its next use.
    func interrupt() { life.interrupt() }

    /// The running instance's process group id (its leader's pid), if one is running.
    func processGroup() -> pid_t? { life.processGroup }

    /// How many times this worker has been started.
    var startCount: Int { life.startCount }

    // MARK: - Blocking

    /// Converts `input` to a PDF at `output` by `deadline`, with the tool's `options`.
    func convert(
        input: String,
        output: String,
        name: String,
        options: WorkerSettings = WorkerSettings(),
        deadline: ContinuousClock.Instant
    ) -> Outcome {
        life.whileBusy(
            { convertNow(input: input, output: output, name: name, options: options, deadline: deadline) },
            retire: { retire($0, gracefully: true) }
        )
    }

    private func convertNow(input: String, output: String, name: String, options: WorkerSettings, deadline: ContinuousClock.Instant) -> Outcome {
        // Past the deadline already: fail without putting a healthy instance at risk.
        if ContinuousClock.now >= deadline { return .timedOut }
        let instance: Instance
        switch warmInstance(deadline: deadline) {
        case .ready(let ready): instance = ready
        case .done(let outcome): return outcome
        }

        let request = WorkerRequest(op: .convert, input: input, output: output, name: name, settings: options)
        let watch = SandboxWatchdog.shared.watch(instance.group, limits: settings.sandbox.limits)
        let result = exchange(instance, request.line(), deadline: deadline)
        SandboxWatchdog.shared.end(watch)
        if case .limit(let kind) = instance.group.stopReason {
            retire(instance, gracefully: false)
            return .limitExceeded(kind)
        }
        switch result {
        case .reply(let reply):
            instance.conversions.add(1, ordering: .relaxed)
            if reply.ok { return .converted }
            if reply.fatal == true { retire(instance, gracefully: false) }
            return .refused(reply)
        case .timedOut:
            retire(instance, gracefully: false)
            return .timedOut
        case .interrupted:
            retire(instance, gracefully: false)
            return .interrupted
        case .died:
            let logs = diagnostics()
            let status = retire(instance, gracefully: false)
            let how = "its worker \(ChildTermination(waitStatus: status).description)"
            return .failed(
                JobFailure(
                    .transient,
                    code: LocalFailures.crashedCode,
                    "\(settings.tool) crashed while converting \(name) (\(how))" + (logs.isEmpty ? "" : ": " + logs)
                )
            )
        }
    }

    /// Ends the worker: gracefully when idle, by SIGKILL when a conversion is running (that
    /// conversion returns `.interrupted`). The slot refuses work afterwards.
    func shutDown() {
        if let idle = life.shutDown() { retire(idle, gracefully: true) }
    }

    // MARK: - Life cycle

    private enum Warm {
        case ready(Instance)
        case done(Outcome)
    }

    /// The running worker if it is healthy and has conversions left, else a fresh one.
    private func warmInstance(deadline: ContinuousClock.Instant) -> Warm {
        if let current = life.current {
            if current.conversions.load(ordering: .relaxed) >= settings.maxConversions {
                retire(current, gracefully: true)
            } else if !current.isAlive {
                retire(current, gracefully: false)
            } else {
                // A cheap round trip proves the tool itself still answers (for LibreOffice, over the bridge).
                let pingDeadline = min(deadline, .now + .seconds(5))
                switch exchange(current, WorkerRequest.ping.line(), deadline: pingDeadline) {
                case .reply(let reply) where reply.ok:
                    return .ready(current)
                case .interrupted:
                    retire(current, gracefully: false)
                    return .done(.interrupted)
                case .reply, .timedOut, .died:
                    retire(current, gracefully: false)
                    if ContinuousClock.now >= deadline { return .done(.timedOut) }
                }
            }
        }
        return start(deadline: deadline)
    }

    private func start(deadline: ContinuousClock.Instant) -> Warm {
        try? FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
        guard let (ours, theirs) = socketPair() else {
            return .done(.failed(Self.unavailable("a socket for the \(settings.tool) worker could not be created")))
        }
        defer { close(theirs) }

        if let refusal = life.refusal() {
            close(ours)
            switch refusal {
            case .shutDown: return .done(.failed(Self.unavailable("the \(settings.tool) converter has been shut down")))
            case .interrupted: return .done(.interrupted)
            }
        }

        let spec = settings.launch(theirs)
        let instance: Instance
        do throws(SpawnFailure) {
            instance = Instance(group: try ProcessGroup.start(spec), socket: ours)
        } catch {
            close(ours)
            return .done(.failed(Self.unavailable(error.message)))
        }
        life.install(instance)

        let readyDeadline = min(deadline, .now + settings.startTimeout)
        switch readLine(instance.socket, deadline: readyDeadline, alive: { instance.isAlive }) {
        case .line(let line) where WorkerReply.decode(line)?.ok == true:
            return .ready(instance)
        case .timedOut:
            retire(instance, gracefully: false)
            if ContinuousClock.now >= deadline { return .done(.timedOut) }
            return .done(.failed(Self.unavailable("\(settings.tool) did not start within \(settings.startTimeout.inWords)")))
        case .line, .closed:
            if life.isInterrupted {
                retire(instance, gracefully: false)
                return .done(.interrupted)
            }
            let logs = diagnostics()
            retire(instance, gracefully: false)
            settings.afterFailedStart()
            return .done(.failed(Self.unavailable("\(settings.tool) did not start" + (logs.isEmpty ? "" : ": " + logs))))
        }
    }

    /// Stops and reaps `instance` if it is still the worker's; returns the leader's wait status.
    @discardableResult
    private func retire(_ instance: Instance, gracefully: Bool) -> Int32 {
        guard life.release(instance) else { return 0 }
        if gracefully, instance.isAlive {
            // Let the tool close its profile cleanly; SIGKILL follows if it dawdles.
            _ = send(WorkerRequest.quit.line(), to: instance.socket)
            let deadline = ContinuousClock.now + .seconds(3)
            while instance.group.isRunning(instance.group.id), ContinuousClock.now < deadline { usleep(20_000) }
        }
        return instance.group.killAndReap()
    }

    // MARK: - Talking to the worker

    private enum Exchange {
        case reply(WorkerReply)
        case timedOut
        case interrupted
        case died
    }

    private func exchange(_ instance: Instance, _ line: [UInt8], deadline: ContinuousClock.Instant) -> Exchange {
        let result: Exchange
        if !send(line, to: instance.socket) {
            result = .died
        } else {
            switch readLine(instance.socket, deadline: deadline, alive: { instance.isAlive }) {
            case .line(let line): result = WorkerReply.decode(line).map(Exchange.reply) ?? .died
            case .timedOut: result = .timedOut
            case .closed: result = .died
            }
        }
        if case .reply = result { return result }
        return life.isInterrupted ? .interrupted : result
    }

    private func send(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += n
        }
        return true
    }

    private enum LineResult {
        case line([UInt8])
        case timedOut
        case closed
    }

    /// Reads one reply line; polls in short slices so a dead process is noticed even when
    /// something else keeps the socket open.
    private func readLine(_ socket: Int32, deadline: ContinuousClock.Instant, alive: () -> Bool) -> LineResult {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return .timedOut }
            let slice = min(remaining, .milliseconds(250))
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(slice.inMilliseconds) + 1)
            if ready < 0 && errno != EINTR { return .closed }
            if ready <= 0 {
                if !alive() { return .closed }
                continue
            }
            let n = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .closed
            }
            if n == 0 { return .closed }
            line.append(contentsOf: chunk[..<n])
            // The worker writes exactly one line per request, so nothing follows the newline.
            if let newline = line.firstIndex(of: UInt8(ascii: "\n")) { return .line(Array(line[..<newline])) }
        }
    }

    // MARK: - Helpers

    /// The tails of the worker's and the tool's logs, shortened for a message.
    func diagnostics() -> String {
        settings.logs.map { OutputCheck.tail(ofFile: $0) }
            .map { OutputCheck.lastLines($0, count: 3) }
            .filter { !$0.isEmpty }
            .joined(separator: " | ")
    }

    private static func unavailable(_ message: String) -> JobFailure {
        JobFailure.converterUnavailable(message)
    }
}
