import Foundation
import GatewayCore

/// Web pages and uploaded HTML → PDF with headless Chromium (DESIGN §4).
///
/// Each job gets a fresh profile in its work directory; background networking, component
/// updates, sync and the like are off so Chromium fetches nothing but the page, and all of that
/// goes through a `VettingProxy` that applies the SSRF rules to every request. Uploaded HTML is
/// served by that proxy from an `http:` origin with a no-fetch CSP header, never opened as a
/// `file:` URL: a `file:` page could frame, or navigate to, any file the gateway can read and
/// print it. It is printed with `--print-to-pdf`, its options added as CSS (`ChromiumPage`); a
/// URL is printed through DevTools (`ChromiumDevToolsPrint`), which takes the paper size,
/// orientation, margins and backgrounds as parameters.
final class ChromiumConverter: Converter {
    let name = "local.chromium"
    let slots: SlotPool<Int>
    private let executable: String
    private let virtualTimeBudget: Duration
    private let urlGuard: URLGuard
    private let sandbox: ConverterSandbox

    init(configuration: LocalConverter.Configuration) {
        executable = configuration.chromiumPath
        sandbox = configuration.sandbox
        urlGuard = configuration.urlGuard
        virtualTimeBudget = configuration.chromiumVirtualTimeBudget
        slots = SlotPool(Array(0..<max(1, configuration.chromiumSlots)))
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) -> Void) async throws {
        try Task.checkCancellation()
        events(.entered(.converting))
        let work = request.workDirectory + "/chromium"
        // Chromium puts a unix socket in TMPDIR, and socket paths are capped at 108 bytes: a
        // store deep in the file system would make every conversion abort. So TMPDIR is short.
        let socketDirectory = FileManager.default.temporaryDirectory.path + "/pdfgate-chromium-" + UUID().uuidString.prefix(8).lowercased()
        try? FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: work)
            try? FileManager.default.removeItem(atPath: socketDirectory)
        }
        let (target, what, isUpload) = try prepareTarget(request, in: work)
        // In the sandbox Chromium has no network at all: one listener, bound inside its network
        // namespace and handed to us, is the only address it can reach, and the proxy answers it.
        let channel = sandbox.isSealed ? socketPair() : nil
        if sandbox.isSealed && channel == nil {
            throw JobFailure(.transient, code: "converter_unavailable", "a socket for Chromium's sandbox could not be created")
        }
        defer { if let channel { close(channel.theirs) } }
        let listener: VettingProxy.Listener =
            channel.map { .fromSandbox(channel: $0.ours, port: ConverterSandbox.proxyPort) } ?? .loopback
        // SSRF: the page is checked now, so a refused URL fails before Chromium starts; then
        // every request Chromium makes — redirects and subresources included — goes through a
        // proxy that checks it and connects to the address it checked (see `VettingProxy`).
        let proxy: VettingProxy
        switch request.source {
        case .url(let url):
            _ = try await urlGuard.vet(url)
            proxy = try VettingProxy(page: url, urlGuard: urlGuard, listener: listener)
        case .file:
            proxy = try VettingProxy(
                serving: Self.uploadedPage(in: work),
                at: target,
                contentSecurityPolicy: ChromiumPage.contentSecurityPolicy,
                listener: listener
            )
        }
        defer { proxy.stop() }
        let output = work + "/output.pdf"
        let log = work + "/chromium.log"

        var arguments = Self.baseFlags + ["--user-data-dir=\(work)/profile"]
        if geteuid() == 0 { arguments.append("--no-sandbox") }  // its own sandbox refuses root; bubblewrap is ours
        arguments += [
            "--proxy-server=\(proxy.chromiumProxyServer)",
            "--proxy-bypass-list=<-loopback>",  // loopback too: the proxy decides, by the allow-list
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  // Chromium resolves nothing itself
            "--disable-quic", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        ]
        // A sandbox has a private /tmp, short enough for Chromium's socket paths.
        let environment = childEnvironment(privateDirectory: work, extra: ["TMPDIR": sandbox.isSealed ? "/tmp" : socketDirectory])
        let sandbox = sandbox
        let seal = { (spec: ChildSpec) in
            sandbox.wrap(spec, mounts: .init(writable: [work]), backstops: .init(addressSpace: false, cpu: true), listenerChannel: channel?.theirs)
        }

        if isUpload {
            // Our own copy of the page carries the options as CSS: the plain print switch does.
            let spec = seal(
                ChildSpec(
                    executable: executable,
                    arguments: arguments + [
                        "--print-to-pdf=\(output)", "--no-pdf-header-footer",
                        "--virtual-time-budget=\(Self.milliseconds(virtualTimeBudget))", target,
                    ],
                    environment: environment,
                    workingDirectory: work,
                    stdout: .file(log),
                    stderr: .file(log)
                )
            )
            let outcome = try await LocalFailures.withSlot(slots, tool: "Chromium", what: what, deadline: request.deadline) { _ in
                do throws(SpawnFailure) {
                    return try await runOneShot(spec, deadline: request.deadline, limits: sandbox.limits)
                } catch {
                    throw JobFailure(.transient, code: "converter_unavailable", "Chromium could not be started: \(error.message)")
                }
            }
            let diagnostics = OutputCheck.tail(ofFile: log)
            switch outcome {
            case .cancelled:
                throw CancellationError()
            case .timedOut:
                throw LocalFailures.timedOut("Chromium", what)
            case .limitExceeded(let kind):
                throw sandbox.limits.failure(kind, tool: "Chromium", what: what)
            case .finished(.signaled(let signal)):
                throw LocalFailures.crashed("Chromium", what, "was killed by signal \(signal)", log: diagnostics)
            case .finished(.exited(let status)):
                if let failure = Self.pageLoadFailure(in: diagnostics, what: what) { throw failure }
                if status != 0 {
                    throw LocalFailures.crashed("Chromium", what, "exited with status \(status)", log: diagnostics)
                }
            }
        } else {
            // Someone else's page: the options go to `Page.printToPDF` through DevTools.
            let outcome = try await LocalFailures.withSlot(slots, tool: "Chromium", what: what, deadline: request.deadline) { _ in
                do throws(SpawnFailure) {
                    return try await ChromiumDevToolsPrint.print(
                        url: target,
                        options: request.options,
                        executable: executable,
                        flags: arguments,
                        environment: environment,
                        seal: seal,
                        limits: sandbox.limits,
                        workDirectory: work,
                        log: log,
                        output: output,
                        settle: virtualTimeBudget,
                        deadline: request.deadline
                    )
                } catch {
                    throw JobFailure(.transient, code: "converter_unavailable", "Chromium could not be started: \(error.message)")
                }
            }
            switch outcome {
            case .printed: break
            case .cancelled: throw CancellationError()
            case .timedOut: throw LocalFailures.timedOut("Chromium", what)
            case .limitExceeded(let kind): throw sandbox.limits.failure(kind, tool: "Chromium", what: what)
            case .pageFailed(let error):
                let failure = Self.pageLoadFailure(in: "Page load failed: \(error)", what: what)!
                throw Self.explain(failure, notes: proxy.notes)
            case .broken(let how):
                throw LocalFailures.crashed("Chromium", what, "broke off printing: \(how)", log: OutputCheck.tail(ofFile: log))
            }
        }
        try OutputCheck.verify(output, tool: "Chromium", diagnostics: OutputCheck.tail(ofFile: log))
        try OutputCheck.deliver(output, to: request.outputPath)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    func isReady() async -> Bool { FileManager.default.isExecutableFile(atPath: executable) }

    // MARK: - Helpers

    /// What Chromium should open, a name for messages, and whether it is an upload.
    private func prepareTarget(_ request: ConversionRequest, in work: String) throws(JobFailure) -> (String, String, Bool) {
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        } catch {
            throw JobFailure(.transient, code: "input_not_staged", "Chromium's work directory could not be created: \(error.localizedDescription)")
        }
        switch request.source {
        case .url(let url):
            // Only the web: a file:// or chrome:// URL would print the gateway's own files.
            guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw JobFailure(.rejected, code: "unsupported_url", "only http and https URLs can be converted, not \(url)")
            }
            return (url, url, false)
        case .file(let path, let originalFilename):
            let page = Self.uploadedPage(in: work)
            do {
                let html = try Data(contentsOf: URL(fileURLWithPath: path))
                try Data(ChromiumPage.prepare(Array(html), options: request.options)).write(to: URL(fileURLWithPath: page))
            } catch {
                throw JobFailure(.transient, code: "input_not_staged", "the uploaded HTML could not be prepared: \(error.localizedDescription)")
            }
            return (Self.uploadedPageURL, originalFilename, true)
        }
    }

    /// Where Chromium asks the proxy for an uploaded page: a name that resolves nowhere, so
    /// only the proxy can answer it.
    static let uploadedPageURL = "http://uploaded-page.pdfgate.invalid/input.html"

    /// Our prepared copy of an uploaded page, which the proxy serves at `uploadedPageURL`.
    static func uploadedPage(in work: String) -> String { work + "/input.html" }

    /// Chromium exits 0 without a PDF when the page does not load; its log says why.
    static func pageLoadFailure(in log: String, what: String) -> JobFailure? {
        guard let range = log.range(of: "Page load failed: ") else { return nil }
        let error = String(log[range.upperBound...].prefix { !$0.isWhitespace })
        let connectionErrors = [
            "net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET", "net::ERR_CONNECTION_CLOSED", "net::ERR_CONNECTION_TIMED_OUT",
            "net::ERR_TIMED_OUT", "net::ERR_NAME_NOT_RESOLVED", "net::ERR_INTERNET_DISCONNECTED", "net::ERR_ADDRESS_UNREACHABLE",
            "net::ERR_NETWORK_CHANGED", "net::ERR_EMPTY_RESPONSE", "net::ERR_PROXY_CONNECTION_FAILED",
        ]
        let kind: FailureClass = connectionErrors.contains(error) ? .transient : .rejected
        return JobFailure(kind, code: "page_load_failed", "Chromium could not load \(what): \(error)")
    }

    /// A failed page load with what the proxy saw: a refused request (a redirect to a private
    /// address, say) makes it a rejection naming the rule; an origin that did not answer, a
    /// transient failure saying which. Navigations count first, then requests the proxy could
    /// not classify (HTTPS), latest first; a refused image did not fail the page.
    static func explain(_ failure: JobFailure, notes: [VettingProxy.Note]) -> JobFailure {
        let candidates = notes.filter { $0.navigation == true } + notes.filter { $0.navigation == nil }.reversed()
        switch candidates.first {
        case .refused(let refusal, _): return refusal
        case .unreachable(let reason, _): return JobFailure(.transient, code: failure.code, "\(failure.message): \(reason)")
        case nil: return failure
        }
    }

    /// Flags for a headless print that talks to nothing but the page.
    static let baseFlags = [
        "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-breakpad",
        "--disable-crash-reporter", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
        "--disable-background-timer-throttling", "--disable-dev-shm-usage", "--no-pings", "--metrics-recording-only",
        "--safebrowsing-disable-auto-update", "--password-store=basic", "--mute-audio", "--hide-scrollbars",
        "--disable-features=NetworkTimeServiceQuerying,Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,DialMediaRouteProvider",
    ]
}
