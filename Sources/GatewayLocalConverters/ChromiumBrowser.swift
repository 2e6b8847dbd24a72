import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox
import Synchronization

/// One warm headless Chromium: started once, sealed in its sandbox, and driven over its DevTools
/// pipe; each job prints in a browser context of its own (`ChromiumDevToolsPrint`). Starting a
/// browser is most of what a cold `chromium --print-to-pdf` costs, so the slot keeps it running
/// and starts afresh after `maxJobs`, when it crashed, and when it stops answering.
///
/// In the sandbox the browser can reach one address, 127.0.0.1:3128 inside its own network
/// namespace, bound there by `pdfgate sandbox-exec` and handed to us; its `ProxyListener` routes
/// that to the current job's `VettingProxy`.
///
/// The DevTools conversation awaits Chromium's messages without holding a thread
/// (`DevToolsPipe`). The pool leases a browser to one caller at a time; only `interrupt()` and
/// `shutDown()` may be called concurrently with a print.
final class ChromiumBrowser: Sendable {
    /// Where the browser's program, profile and logs are.
    struct Settings: Sendable {
        var executable: String
        /// `ChromiumConverter.baseFlags` and what this machine adds (`--no-sandbox` as root).
        var flags: [String]
        /// Private to this browser: profile, HOME, TMPDIR and its log live here.
        var directory: String
        var maxJobs: Int
        var startTimeout: Duration
        var sandbox: ConverterSandbox
    }

    /// One page to print.
    struct Page: Sendable {
        var url: String
        var proxy: VettingProxy
        var options: ConversionOptions
        var pageSizeFromCSS: Bool
        var settle: ChromiumDevToolsPrint.Settle
        var output: String
        /// Captured as this image instead of printed (a `SCREENSHOT` job).
        var screenshot: ScreenshotOptions? = nil
    }

    /// How one print ended.
    enum Outcome: Sendable, Equatable {
        case printed
        /// The page did not load: Chromium's `net::ERR_…` text.
        case pageFailed(String)
        /// The job's options fail it (`ChromiumDevToolsPrint.Result.refused`).
        case refused(JobFailure)
        /// The browser misbehaved (crashed, broke the protocol): what happened. It was retired.
        case broken(String)
        /// The browser could not be started: why.
        case unavailable(String)
        case timedOut
        /// `interrupt()` or `shutDown()` stopped it.
        case interrupted
        /// The watchdog stopped it at one of the sandbox's limits.
        case limitExceeded(ResourceLimits.Kind)
    }

    let settings: Settings
    private let life = WarmLife<Instance>()

    /// A running browser. Whoever takes it out of `life` reaps it.
    private final class Instance: WarmInstance {
        let group: ProcessGroup
        let pipe: DevToolsPipe
        let listener: ProxyListener
        let jobs = Atomic<Int>(0)
        /// The sandbox's font generation when it started: fontconfig reads fonts once per process.
        let fontGeneration: Int
        private let socket: Int32

        /// Unsealed only: a short TMPDIR of its own (Chromium's socket paths are capped at 108 bytes).
        let scratch: String?

        init(group: ProcessGroup, socket: Int32, listener: ProxyListener, scratch: String?, fontGeneration: Int) {
            self.group = group
            self.fontGeneration = fontGeneration
            self.socket = socket
            self.listener = listener
            self.scratch = scratch
            pipe = DevToolsPipe(socket: socket, deadline: .now, alive: { group.isRunning })
        }

        deinit {
            listener.stop()
            close(socket)
            if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
        }

        var isAlive: Bool { group.isRunning }
    }

    init(settings: Settings) {
        self.settings = settings
    }

    private var log: String { settings.directory + "/chromium.log" }

    // MARK: - Called from any thread

    /// Clears a stale interruption; call before installing the cancellation handler.
    func prepare() { life.prepare() }

    /// Kills the browser now; the blocked print returns `.interrupted` and the next one starts
    /// a fresh browser.
    func interrupt() { life.interrupt() }

    /// The running browser's process group id, if one is running.
    func processGroup() -> pid_t? { life.processGroup }

    /// How many times this slot has started Chromium.
    var startCount: Int { life.startCount }

    // MARK: - Printing

    /// Prints `page` by `deadline` in a fresh browser context.
    func print(_ page: Page, deadline: ContinuousClock.Instant) async -> Outcome {
        await life.whileBusy({ await printNow(page, deadline: deadline) }, retire: { await retire($0) })
    }

    private func printNow(_ page: Page, deadline: ContinuousClock.Instant) async -> Outcome {
        if ContinuousClock.now >= deadline { return .timedOut }
        let instance: Instance
        switch await warmInstance(deadline: deadline) {
        case .ready(let ready): instance = ready
        case .done(let outcome): return outcome
        }

        instance.listener.route(to: page.proxy)
        instance.pipe.deadline = deadline
        let watch = SandboxWatchdog.shared.watch(instance.group, limits: settings.sandbox.limits)
        let result: Swift.Result<ChromiumDevToolsPrint.Result, any Error>
        do {
            result = .success(
                try await ChromiumDevToolsPrint.print(
                    page.url,
                    options: page.options,
                    pageSizeFromCSS: page.pageSizeFromCSS,
                    settle: page.settle,
                    proxyServer: instance.listener.proxyServer,
                    pipe: instance.pipe,
                    output: page.output,
                    screenshot: page.screenshot,
                    netError: { [proxy = page.proxy] in proxy.netError(for: $0) }
                )
            )
        } catch {
            result = .failure(error)
        }
        SandboxWatchdog.shared.end(watch)
        instance.listener.route(to: nil)
        instance.jobs.add(1, ordering: .relaxed)

        if case .limit(let kind) = instance.group.stopReason {
            await retire(instance)
            return .limitExceeded(kind)
        }
        switch result {
        case .success(.printed): return .printed
        case .success(.pageFailed(let error)): return .pageFailed(error)
        case .success(.refused(let failure)): return .refused(failure)
        case .failure(let error):
            await retire(instance)
            if life.isInterrupted { return .interrupted }
            if ContinuousClock.now >= deadline { return .timedOut }
            return .broken("\(error)")
        }
    }

    /// Ends the browser: at once, since it holds nothing worth saving. A print in flight
    /// returns `.interrupted`. The slot refuses work afterwards.
    func shutDown() async {
        if let idle = life.shutDown() { await retire(idle) }
    }

    /// The tail of the browser's log, for a message.
    func diagnostics() -> String {
        OutputCheck.lastLines(OutputCheck.tail(ofFile: log), count: 3)
    }

    // MARK: - Life cycle

    private enum Warm {
        case ready(Instance)
        case done(Outcome)
    }

    /// The running browser if it is healthy, has jobs left and sees today's fonts, else a fresh one.
    private func warmInstance(deadline: ContinuousClock.Instant) async -> Warm {
        if let current = life.current {
            if current.jobs.load(ordering: .relaxed) >= settings.maxJobs || !current.isAlive
                || current.fontGeneration != settings.sandbox.fontGeneration
            {
                await retire(current)
            } else {
                // A cheap round trip proves the browser process still answers.
                current.pipe.deadline = min(deadline, .now + .seconds(5))
                if (try? await current.pipe.call("Browser.getVersion")) != nil { return .ready(current) }
                await retire(current)
                if life.isInterrupted { return .done(.interrupted) }
                if ContinuousClock.now >= deadline { return .done(.timedOut) }
            }
        }
        return await start(deadline: deadline)
    }

    private func start(deadline: ContinuousClock.Instant) async -> Warm {
        let fileManager = FileManager.default
        // A fresh profile each start: nothing a crashed browser left behind carries over.
        try? fileManager.removeItem(atPath: settings.directory)
        try? fileManager.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
        switch life.refusal() {
        case .shutDown: return .done(.unavailable("the Chromium converter has been shut down"))
        case .interrupted: return .done(.interrupted)
        case nil: break
        }

        guard let (ours, theirs) = socketPair() else { return .done(.unavailable("a socket for Chromium's DevTools pipe could not be created")) }
        defer { close(theirs) }
        let sealed = settings.sandbox.isSealed
        let channel = sealed ? socketPair() : nil
        defer { if let channel { close(channel.theirs) } }
        let listener: ProxyListener
        do throws(JobFailure) {
            if sealed {
                guard let channel else { throw VettingProxy.unavailable("a socket for Chromium's sandbox could not be created") }
                listener = try ProxyListener(.fromSandbox(channel: channel.ours, port: ConverterSandbox.proxyPort))
            } else {
                listener = try ProxyListener(.loopback)
            }
        } catch {
            close(ours)
            return .done(.unavailable(error.message))
        }

        // Chromium puts a unix socket in TMPDIR, and socket paths are capped at 108 bytes: the
        // sandbox's private /tmp is short; unsealed, a short directory of its own in the system's.
        let scratch =
            sealed ? nil : FileManager.default.temporaryDirectory.path + "/pdfgate-chromium-" + UUID().uuidString.prefix(8).lowercased()
        if let scratch { try? fileManager.createDirectory(atPath: scratch, withIntermediateDirectories: true) }
        let environment = childEnvironment(privateDirectory: settings.directory, extra: ["TMPDIR": scratch ?? "/tmp"])
        let fontGeneration = settings.sandbox.fontGeneration
        // Chromium reads the pipe on fd 3 and writes on fd 4: a shell puts our socket there.
        // (`--no-pdf-header-footer` must not be among the flags: in this mode it makes Chromium
        // kill the page's renderer; `displayHeaderFooter: false` does its job here.)
        let spec = settings.sandbox.wrap(
            ChildSpec(
                executable: "/bin/sh",
                arguments: ["-c", #"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#, settings.executable] + settings.flags + [
                    "--user-data-dir=\(settings.directory)/profile",
                    "--proxy-server=\(listener.proxyServer)",
                    "--proxy-bypass-list=<-loopback>",
                    "--remote-debugging-pipe", "about:blank",
                ],
                environment: environment,
                workingDirectory: settings.directory,
                stdin: .descriptor(theirs),
                stdout: .descriptor(theirs),
                stderr: .file(log)
            ),
            mounts: .init(writable: [settings.directory]),
            // Chromium reserves far more address space than it uses; the watchdog caps memory.
            backstops: .init(addressSpace: false, cpu: false),
            listenerChannel: channel?.theirs
        )
        let instance: Instance
        do throws(SpawnFailure) {
            instance = Instance(
                group: try ProcessGroup.start(spec),
                socket: ours,
                listener: listener,
                scratch: scratch,
                fontGeneration: fontGeneration
            )
        } catch {
            if let scratch { try? fileManager.removeItem(atPath: scratch) }
            listener.stop()
            close(ours)
            return .done(.unavailable("Chromium could not be started: \(error.message)"))
        }
        life.install(instance)

        instance.pipe.deadline = min(deadline, .now + settings.startTimeout)
        do {
            try await instance.pipe.call("Browser.getVersion")
            return .ready(instance)
        } catch {
            let timedOut = ContinuousClock.now >= instance.pipe.deadline
            await retire(instance)
            if life.isInterrupted { return .done(.interrupted) }
            if ContinuousClock.now >= deadline { return .done(.timedOut) }
            let logs = diagnostics()
            let why = timedOut ? "did not answer within \(settings.startTimeout.inWords)" : "exited at start"
            return .done(.unavailable("Chromium \(why)" + (logs.isEmpty ? "" : ": " + logs)))
        }
    }

    /// Stops and reaps `instance` if it is still the slot's; the reaping is awaited, not blocked on.
    private func retire(_ instance: Instance) async {
        guard life.release(instance) else { return }
        instance.listener.stop()
        await instance.group.killAndReap()
    }
}
