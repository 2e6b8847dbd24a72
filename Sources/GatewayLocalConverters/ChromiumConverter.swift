import Foundation
import GatewayConversionFormats
import GatewayJobModel
import GatewayPDFTools
import GatewayProcess
import GatewaySandbox
import GatewayURLSecurity

/// Web pages and uploaded HTML → PDF with headless Chromium (DESIGN §4).
///
/// Each slot keeps one warm browser (`ChromiumBrowser`) and each job prints in a fresh browser
/// context of it. Background networking, component updates, sync and the like are off, so
/// Chromium fetches nothing but the page, and all of that goes through a `VettingProxy` that
/// applies the SSRF rules to every request. Uploaded HTML is served by that proxy from an
/// `http:` origin with a no-fetch CSP header, never opened as a `file:` URL: a `file:` page could
/// frame, or navigate to, any file the gateway can read and print it. Its options are added as
/// CSS (`ChromiumPage`); a URL's go to `Page.printToPDF` as parameters.
final class ChromiumConverter: Converter {
    let name = "local.chromium"
    let slots: SlotPool<ChromiumBrowser>
    private let executable: String
    private let virtualTimeBudget: Duration
    private let urlGuard: URLGuard
    private let limits: ResourceLimits

    init(configuration: LocalConverter.Configuration, directory: String) {
        executable = configuration.chromiumPath
        urlGuard = configuration.urlGuard
        limits = configuration.sandbox.limits
        virtualTimeBudget = configuration.chromiumVirtualTimeBudget
        var flags =
            Self.baseFlags + [
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  // Chromium resolves nothing itself
                "--disable-quic", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            ]
        if geteuid() == 0 { flags.append("--no-sandbox") }  // its own sandbox refuses root; bubblewrap is ours
        slots = SlotPool(
            (0..<max(1, configuration.chromiumSlots)).map { index in
                ChromiumBrowser(
                    settings: .init(
                        executable: configuration.chromiumPath,
                        flags: flags,
                        directory: directory + "/slot-\(index)",
                        maxJobs: max(1, configuration.maxJobsPerChromiumInstance),
                        startTimeout: .seconds(30),
                        sandbox: configuration.sandbox
                    )
                )
            }
        )
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        try Task.checkCancellation()
        await events(.entered(.converting))
        let work = request.workDirectory + "/chromium"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (target, what, assets) = try prepareTarget(request, in: work)
        // SSRF: the page is checked now, so a refused URL fails before Chromium is asked; then
        // every request Chromium makes — redirects and subresources included — goes through a
        // proxy that checks it and connects to the address it checked (see `VettingProxy`).
        let page: ChromiumBrowser.Page
        let output = work + "/output." + (request.screenshot?.format.rawValue ?? "pdf")
        var options = request.options
        options.browser.gotenbergWaits = request.gotenbergSemantics
        switch request.source {
        case .pdfs, .images:
            throw JobFailure(.rejected, code: "unsupported_source", "Chromium prints web pages and HTML, not PDFs or page images")
        case .url(let url):
            _ = try await urlGuard.vet(url)
            page = .init(
                url: url,
                proxy: try VettingProxy(page: url, urlGuard: urlGuard),
                options: options,
                pageSizeFromCSS: false,
                settle: .requestsDone(within: virtualTimeBudget),
                output: output,
                screenshot: request.screenshot
            )
        case .file:
            page = .init(
                url: target,
                proxy: VettingProxy(
                    serving: Self.uploadedPage(in: work),
                    at: target,
                    assets: assets,
                    contentSecurityPolicy: ChromiumPage.contentSecurityPolicy
                ),
                options: options,
                pageSizeFromCSS: true,
                // On the real clock, printed once loaded and its requests done: a page told to
                // wait for something, and every page on Gotenberg's routes (whose clients expect
                // a 2-second timer not to have fired unless they asked for `waitDelay`).
                // Otherwise its timers are fast-forwarded through the budget, so a page that
                // draws itself from a script is printed drawn, without a wait to guess.
                settle: request.options.browser.waitsBeforePrinting || request.gotenbergSemantics
                    ? .requestsDone(within: virtualTimeBudget) : .virtualTime(virtualTimeBudget),
                output: output,
                screenshot: request.screenshot
            )
        }
        defer { page.proxy.stop() }

        let outcome = try await LocalFailures.withSlot(slots, tool: "Chromium", what: what, deadline: request.deadline) { browser in
            var outcome = await print(page, in: browser, deadline: request.deadline)
            // A browser that crashed under the page gets one fresh start: the crash may have
            // been its own (a leak after many jobs), and a second one is the page's doing.
            if case .broken = outcome, !Task.isCancelled, ContinuousClock.now < request.deadline {
                outcome = await print(page, in: browser, deadline: request.deadline)
            }
            return (outcome, browser.diagnostics())
        }
        switch outcome.0 {
        case .printed: break
        case .interrupted:
            if Task.isCancelled { throw CancellationError() }
            throw LocalFailures.shutDown("Chromium")
        case .timedOut: throw LocalFailures.timedOut("Chromium", what)
        case .limitExceeded(let kind): throw limits.failure(kind, tool: "Chromium", what: what)
        case .unavailable(let why): throw JobFailure.converterUnavailable(why)
        case .refused(let failure): throw failure
        case .pageFailed(let error):
            let failure = Self.pageLoadFailure(in: "Page load failed: \(error)", what: what)!
            throw Self.explain(failure, notes: page.proxy.notes)
        case .broken(let how):
            throw LocalFailures.crashed("Chromium", what, "broke off printing: \(how)", log: outcome.1)
        }
        try OutputCheck.verify(output, tool: "Chromium", diagnostics: outcome.1, image: request.screenshot?.format)
        try OutputCheck.deliver(output, to: request.outputPath)
    }

    private func print(_ page: ChromiumBrowser.Page, in browser: ChromiumBrowser, deadline: ContinuousClock.Instant) async -> ChromiumBrowser.Outcome
    {
        browser.prepare()
        return await withTaskCancellationHandler {
            await browser.print(page, deadline: deadline)
        } onCancel: {
            browser.interrupt()
        }
    }

    func isReady() async -> Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Ends every browser; prints in flight fail as transient.
    func shutdown() async {
        _ = slots.shutDown()
        await withTaskGroup(of: Void.self) { group in
            for browser in slots.slots { group.addTask { await browser.shutDown() } }
        }
    }

    // MARK: - Helpers

    /// What Chromium should open, a name for messages, and for an HTML bundle the files served
    /// beside its page.
    private func prepareTarget(_ request: ConversionRequest, in work: String) throws(JobFailure) -> (String, String, [String: String]) {
        try ToolFiles.makeDirectory(work)
        switch request.source {
        case .pdfs, .images:
            throw JobFailure(.rejected, code: "unsupported_source", "Chromium prints web pages and HTML, not PDFs or page images")
        case .url(let url):
            // Only the web: a file:// or chrome:// URL would print the gateway's own files.
            guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw JobFailure(.rejected, code: "unsupported_url", "only http and https URLs can be converted, not \(url)")
            }
            return (url, url, [:])
        case .file(let path, let originalFilename):
            let page = Self.uploadedPage(in: work)
            var source = path
            var assets: [String: String] = [:]
            if InputStaging.fileExtension(of: originalFilename) == HTMLBundle.fileExtension {
                let bundle = try HTMLBundle.unpack(path, into: work + "/bundle")
                (source, assets) = (bundle.index, bundle.assets)
            }
            do {
                let html = try Data(contentsOf: URL(fileURLWithPath: source))
                try Data(ChromiumPage.prepare(Array(html), options: request.options)).write(to: URL(fileURLWithPath: page))
            } catch {
                throw JobFailure(.transient, code: "input_not_staged", "the uploaded HTML could not be prepared: \(error.localizedDescription)")
            }
            return (Self.uploadedPageURL, originalFilename, assets)
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
        return JobFailure(kind, code: "page_load_failed", "Chromium could not load \(what): \(error)", detail: error)
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
