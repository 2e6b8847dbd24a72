import Foundation
import GatewayJobModel

/// One print in a warm browser, over Chromium's DevTools protocol: a fresh incognito browser
/// context with the job's proxy, a tab, the page, its settling, `Page.printToPDF`, and the
/// context disposed again — so no cookie, cache entry or storage outlives the job.
///
/// `Page.printToPDF` rather than `--print-to-pdf`: the switch has no paper size, orientation,
/// margins or backgrounds, and CSS cannot be added to someone else's page. Navigation also
/// reports its own network error here instead of a log line.
enum ChromiumDevToolsPrint {
    /// How a page is given time to finish after its load event.
    enum Settle: Sendable, Equatable {
        /// Until none of its requests is in flight, for at most this long (someone else's page:
        /// scripts, fonts and images it fetches after the document).
        case requestsDone(within: Duration)
        /// Its own timers run this much virtual time, fast-forwarded while it waits for nothing
        /// (an uploaded page, which has no network; what `--virtual-time-budget` does).
        case virtualTime(Duration)
    }

    /// What became of the page.
    enum Result: Sendable, Equatable {
        case printed
        /// The page did not load: Chromium's `net::ERR_…` text.
        case pageFailed(String)
        /// The job's options fail it: a `fail_on_…` rule the page broke, a wait that never
        /// ended, a page range the document does not have. The browser is fine.
        case refused(JobFailure)
    }

    /// Prints `url` into `output` (or, given `screenshot`, captures it as that image); with `pageSizeFromCSS` the page's own `@page` size wins (an
    /// uploaded page carries the job's options as CSS, `ChromiumPage`). Throws `DevToolsPipe.Failure` when the browser misbehaves
    /// (crash, broken protocol, no answer by the pipe's deadline): then the browser is suspect.
    static func print(
        _ url: String,
        options: ConversionOptions,
        pageSizeFromCSS: Bool,
        settle: Settle,
        proxyServer: String,
        pipe: DevToolsPipe,
        output: String,
        screenshot: ScreenshotOptions? = nil,
        netError: @escaping @Sendable (String) -> String? = { _ in nil }
    ) async throws -> Result {
        pipe.discardEvents()
        let context = try await pipe.call(
            "Target.createBrowserContext",
            // Loopback too goes to the proxy, which decides by the allow-list.
            ["proxyServer": proxyServer, "proxyBypassList": "<-loopback>"]
        )
        guard let contextID = context["browserContextId"] as? String else { throw DevToolsPipe.Failure(description: "no browser context id") }
        let result: Result
        do {
            result = try await printPage(
                url,
                in: contextID,
                netError: netError,
                options: options,
                pageSizeFromCSS: pageSizeFromCSS,
                settle: settle,
                pipe: pipe,
                output: output,
                screenshot: screenshot
            )
        } catch {
            _ = try? await pipe.call("Target.disposeBrowserContext", ["browserContextId": contextID])
            throw error
        }
        // Its tabs close with it, and with them everything the page stored.
        try await pipe.call("Target.disposeBrowserContext", ["browserContextId": contextID])
        return result
    }

    private static func printPage(
        _ url: String,
        in contextID: String,
        netError: @escaping @Sendable (String) -> String?,
        options: ConversionOptions,
        pageSizeFromCSS: Bool,
        settle: Settle,
        pipe: DevToolsPipe,
        output: String,
        screenshot: ScreenshotOptions?
    ) async throws -> Result {
        let target = try await pipe.call("Target.createTarget", ["url": "about:blank", "browserContextId": contextID])
        guard let targetID = target["targetId"] as? String else { throw DevToolsPipe.Failure(description: "no target id") }
        let attached = try await pipe.call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw DevToolsPipe.Failure(description: "no session id") }
        let watch = ChromiumPageWatch(page: url, options: options.browser, session: session, netError: netError)
        pipe.observer = { [unowned pipe] event in watch.observe(event, pipe: pipe) }
        defer { pipe.observer = nil }
        try await pipe.call("Page.enable", session: session)
        try await pipe.call("Page.setLifecycleEventsEnabled", ["enabled": true], session: session)
        try await pipe.call("Network.enable", session: session)
        let frames = try await pipe.call("Page.getFrameTree", session: session)
        watch.mainFrame = ((frames["frameTree"] as? [String: Any])?["frame"] as? [String: Any])?["id"] as? String
        if let refusal = try await prepare(url, watch: watch, pipe: pipe) { return .refused(refusal) }
        if let screenshot { try await setViewport(screenshot, session: session, pipe: pipe) }

        let navigation = try await pipe.call("Page.navigate", ["url": url], session: session)
        if let failure = watch.failure { return .refused(failure) }
        if let error = navigation["errorText"] as? String, !error.isEmpty { return .pageFailed(error) }
        try await waitUntilSettled(session: session, loader: navigation["loaderId"] as? String, settle: settle, pipe: pipe)
        if let refusal = try await waitBeforePrinting(watch: watch, pipe: pipe) { return .refused(refusal) }
        if let screenshot {
            if let refusal = try await capture(screenshot, session: session, pipe: pipe, output: output) { return .refused(refusal) }
            return .printed
        }
        let parameters = try await parameters(for: options, pageSizeFromCSS: pageSizeFromCSS, session: session, pipe: pipe)
        if let refusal = try await printToPDF(parameters, session: session, pipe: pipe, output: output) { return .refused(refusal) }
        return .printed
    }

    /// When printing must begin to finish by the pipe's deadline: settling and waits end there.
    static func printBy(_ pipe: DevToolsPipe) -> ContinuousClock.Instant {
        pipe.deadline - min(.seconds(5), ContinuousClock.now.duration(to: pipe.deadline) / 4)
    }

    /// The load event, then the settling; with virtual time, the budget's end alone (as
    /// `--virtual-time-budget` has it: the page's own clock says when it is done). A page whose
    /// load never comes (an ad server that hangs) is printed as it stands once its document is
    /// parsed, shortly before the deadline, rather than lost.
    private static func waitUntilSettled(session: String, loader: String?, settle: Settle, pipe: DevToolsPipe) async throws {
        let printBy = printBy(pipe)
        var loadedAt: ContinuousClock.Instant?
        var parsed = false
        var inFlight = Set<String>()
        var budgetSpent = false
        var budgetSet = false
        func settled() async throws -> Bool {
            guard loadedAt != nil, inFlight.isEmpty else { return false }
            guard case .virtualTime(let budget) = settle else { return true }
            if !budgetSet {
                budgetSet = true
                try await pipe.call(
                    "Emulation.setVirtualTimePolicy",
                    ["policy": "pauseIfNetworkFetchesPending", "budget": budget.inMilliseconds],
                    session: session
                )
            }
            return budgetSpent
        }
        func limit() -> ContinuousClock.Instant {
            guard case .requestsDone(let within) = settle, let loadedAt else { return printBy }
            return min(loadedAt + within, printBy)
        }
        while try await !settled(), let event = try await pipe.nextEvent(until: limit()) {
            guard event["sessionId"] as? String == session, let method = event["method"] as? String else { continue }
            let params = event["params"] as? [String: Any] ?? [:]
            switch method {
            case "Page.lifecycleEvent" where loader == nil || params["loaderId"] as? String == loader:
                if params["name"] as? String == "load" { loadedAt = .now }
                if params["name"] as? String == "DOMContentLoaded" { parsed = true }
            // Documents are left out: the load event already waits for frames, and a frame from
            // another site loads in a renderer of its own whose "finished" this session never sees.
            case "Network.requestWillBeSent" where params["type"] as? String != "Document":
                if let id = params["requestId"] as? String { inFlight.insert(id) }
            case "Network.loadingFinished", "Network.loadingFailed":
                if let id = params["requestId"] as? String { inFlight.remove(id) }
            case "Emulation.virtualTimeBudgetExpired":
                budgetSpent = true
            case "Inspector.targetCrashed":
                throw DevToolsPipe.Failure(description: "the page's renderer crashed")
            default:
                break
            }
        }
        if loadedAt == nil && !budgetSpent {
            guard parsed else { throw DevToolsPipe.Failure(description: "the page never loaded") }
            try await pipe.call("Page.stopLoading", session: session)  // printing would wait for the stragglers
        }
    }

    /// Prints and streams the PDF into `output`. Right after a load a warm browser sometimes
    /// answers "Printing failed"; a moment later the same call succeeds. A page range the
    /// document does not have is the job's mistake, not the browser's: a refusal.
    private static func printToPDF(_ parameters: [String: Any], session: String, pipe: DevToolsPipe, output: String) async throws -> JobFailure? {
        var printed: [String: Any] = [:]
        for attempt in 1...10 {
            do {
                printed = try await pipe.call("Page.printToPDF", parameters, session: session)
                break
            } catch let failure as DevToolsPipe.Failure where failure.description.contains("Printing failed") && attempt < 10 {
                usleep(100_000)
            } catch let failure as DevToolsPipe.Failure
                where failure.description.hasPrefix("Page.printToPDF:") && failure.description.lowercased().contains("page range")
            {
                let ranges = parameters["pageRanges"] as? String ?? ""
                return JobFailure(
                    .rejected,
                    code: "page_ranges_beyond_document",
                    "options.page_ranges \"\(ranges)\" asks for pages the printed document does not have (Chromium: \(failure.description.dropFirst("Page.printToPDF: ".count)))"
                )
            }
        }
        guard let stream = printed["stream"] as? String else { throw DevToolsPipe.Failure(description: "printToPDF returned no stream") }
        guard FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) else {
            throw DevToolsPipe.Failure(description: "cannot write \(output)")
        }
        defer { try? file.close() }
        while true {
            let chunk = try await pipe.call("IO.read", ["handle": stream, "size": 1 << 20], session: session)
            if let text = chunk["data"] as? String, !text.isEmpty {
                let bytes = chunk["base64Encoded"] as? Bool == true ? Data(base64Encoded: text) : Data(text.utf8)
                guard let bytes else { throw DevToolsPipe.Failure(description: "IO.read returned bad base64") }
                try file.write(contentsOf: bytes)
            }
            if chunk["eof"] as? Bool == true { break }
        }
        _ = try? await pipe.call("IO.close", ["handle": stream], session: session)
        return nil
    }

}
