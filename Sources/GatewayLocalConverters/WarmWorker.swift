import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox
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
/// The conversation is a `LineWorker`'s: awaited, with no thread held. The pool leases a worker
/// to one caller at a time; only `interrupt()` and `shutDown()` may be called concurrently with a
/// conversion.
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
        let worker: LineWorker
        let conversions = Atomic<Int>(0)
        /// The sandbox's font generation when it started: fontconfig reads fonts once per process.
        let fontGeneration: Int

        init(worker: LineWorker, fontGeneration: Int) {
            self.worker = worker
            self.fontGeneration = fontGeneration
        }

        var group: ProcessGroup { worker.group }

        /// The leader ends when the worker does (a sandbox ends with its command); a dead tool
        /// under a live worker shows in the next ping.
        var isAlive: Bool { group.isRunning }
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

    // MARK: - Converting

    /// Converts `input` to a PDF at `output` by `deadline`, with the tool's `options`.
    func convert(
        input: String,
        output: String,
        name: String,
        options: WorkerSettings = WorkerSettings(),
        deadline: ContinuousClock.Instant
    ) async -> Outcome {
        await life.whileBusy(
            { await convertNow(input: input, output: output, name: name, options: options, deadline: deadline) },
            retire: { await retire($0, gracefully: true) }
        )
    }

    private func convertNow(
        input: String,
        output: String,
        name: String,
        options: WorkerSettings,
        deadline: ContinuousClock.Instant
    ) async -> Outcome {
        // Past the deadline already: fail without putting a healthy instance at risk.
        if ContinuousClock.now >= deadline { return .timedOut }
        let instance: Instance
        switch await warmInstance(deadline: deadline) {
        case .ready(let ready): instance = ready
        case .done(let outcome): return outcome
        }

        let request = WorkerRequest(op: .convert, input: input, output: output, name: name, settings: options)
        let watch = SandboxWatchdog.shared.watch(instance.group, limits: settings.sandbox.limits)
        let result = await exchange(instance, request.line(), deadline: deadline)
        SandboxWatchdog.shared.end(watch)
        if case .limit(let kind) = instance.group.stopReason {
            await retire(instance, gracefully: false)
            return .limitExceeded(kind)
        }
        switch result {
        case .reply(let reply):
            instance.conversions.add(1, ordering: .relaxed)
            if reply.ok { return .converted }
            if reply.fatal == true { await retire(instance, gracefully: false) }
            return .refused(reply)
        case .timedOut:
            await retire(instance, gracefully: false)
            return .timedOut
        case .interrupted:
            await retire(instance, gracefully: false)
            return .interrupted
        case .died:
            let logs = diagnostics()
            let status = await retire(instance, gracefully: false)
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
    func shutDown() async {
        if let idle = life.shutDown() { await retire(idle, gracefully: true) }
    }

    // MARK: - Life cycle

    private enum Warm {
        case ready(Instance)
        case done(Outcome)
    }

    /// The running worker if it is healthy, has conversions left and sees today's fonts, else a
    /// fresh one.
    private func warmInstance(deadline: ContinuousClock.Instant) async -> Warm {
        if let current = life.current {
            if current.conversions.load(ordering: .relaxed) >= settings.maxConversions
                || current.fontGeneration != settings.sandbox.fontGeneration
            {
                await retire(current, gracefully: true)
            } else if !current.isAlive {
                await retire(current, gracefully: false)
            } else {
                // A cheap round trip proves the tool itself still answers (for LibreOffice, over the bridge).
                let pingDeadline = min(deadline, .now + .seconds(5))
                switch await exchange(current, WorkerRequest.ping.line(), deadline: pingDeadline) {
                case .reply(let reply) where reply.ok:
                    return .ready(current)
                case .interrupted:
                    await retire(current, gracefully: false)
                    return .done(.interrupted)
                case .reply, .timedOut, .died:
                    await retire(current, gracefully: false)
                    if ContinuousClock.now >= deadline { return .done(.timedOut) }
                }
            }
        }
        return await start(deadline: deadline)
    }

    private func start(deadline: ContinuousClock.Instant) async -> Warm {
        try? FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
        switch life.refusal() {
        case .shutDown: return .done(.failed(Self.unavailable("the \(settings.tool) converter has been shut down")))
        case .interrupted: return .done(.interrupted)
        case nil: break
        }

        let instance: Instance
        do throws(SpawnFailure) {
            let fontGeneration = settings.sandbox.fontGeneration
            instance = Instance(worker: try await LineWorker.start(settings.launch), fontGeneration: fontGeneration)
        } catch {
            return .done(.failed(Self.unavailable(error.message)))
        }
        life.install(instance)

        let readyDeadline = min(deadline, .now + settings.startTimeout)
        switch await instance.worker.readLine(until: readyDeadline) {
        case .line(let line) where WorkerReply.decode(line)?.ok == true:
            return .ready(instance)
        case .timedOut:
            await retire(instance, gracefully: false)
            if ContinuousClock.now >= deadline { return .done(.timedOut) }
            return .done(.failed(Self.unavailable("\(settings.tool) did not start within \(settings.startTimeout.inWords)")))
        case .line, .closed, .notSent:
            if life.isInterrupted {
                await retire(instance, gracefully: false)
                return .done(.interrupted)
            }
            let logs = diagnostics()
            await retire(instance, gracefully: false)
            settings.afterFailedStart()
            return .done(.failed(Self.unavailable("\(settings.tool) did not start" + (logs.isEmpty ? "" : ": " + logs))))
        }
    }

    /// Stops and reaps `instance` if it is still the worker's; returns the leader's wait status.
    /// Gracefully, the tool gets a "quit" and a few seconds to close its profile cleanly.
    @discardableResult
    private func retire(_ instance: Instance, gracefully: Bool) async -> Int32 {
        guard life.release(instance) else { return 0 }
        if gracefully, instance.isAlive {
            return await instance.worker.end(saying: WorkerRequest.quit.line(), grace: .seconds(3))
        }
        return await instance.worker.terminate()
    }

    // MARK: - Talking to the worker

    private enum Exchange {
        case reply(WorkerReply)
        case timedOut
        case interrupted
        case died
    }

    private func exchange(_ instance: Instance, _ line: [UInt8], deadline: ContinuousClock.Instant) async -> Exchange {
        let result: Exchange
        switch await instance.worker.exchange(line, until: deadline) {
        case .line(let line): result = WorkerReply.decode(line).map(Exchange.reply) ?? .died
        case .timedOut: result = .timedOut
        case .closed, .notSent: result = .died
        }
        if case .reply = result { return result }
        return life.isInterrupted ? .interrupted : result
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
