import Foundation
import GatewayJobModel

/// The job's `BrowserOptions` as DevTools calls: what the page is given before it loads, what
/// is waited for before printing, and the `Page.printToPDF` parameters.
extension ChromiumDevToolsPrint {
    /// Before navigating: user agent, media type, cookies, and request interception for extra
    /// headers. A value Chromium refuses (a cookie it cannot set) refuses the job.
    static func prepare(_ url: String, watch: ChromiumPageWatch, pipe: DevToolsPipe) async throws -> JobFailure? {
        let options = watch.options
        let session = watch.session
        func call(_ method: String, _ params: [String: Any], for option: String) async throws -> JobFailure? {
            do {
                try await pipe.call(method, params, session: session)
                return nil
            } catch let failure as DevToolsPipe.Failure where failure.description.hasPrefix(method + ":") {
                // A protocol error answer: the browser is fine, the value is not.
                return JobFailure(.rejected, code: "invalid_options", "Chromium refused options.\(option): \(failure.description)")
            }
        }
        if let userAgent = options.userAgent,
            let refusal = try await call("Emulation.setUserAgentOverride", ["userAgent": userAgent], for: "user_agent")
        {
            return refusal
        }
        if options.emulatedMediaType != nil || options.emulatedMediaFeatures != nil {
            var media: [String: Any] = [:]
            if let type = options.emulatedMediaType { media["media"] = type.rawValue }
            if let features = options.emulatedMediaFeatures { media["features"] = features.map { ["name": $0.name, "value": $0.value] } }
            if let refusal = try await call("Emulation.setEmulatedMedia", media, for: "emulated_media_type") { return refusal }
        }
        if options.javaScript == false,
            let refusal = try await call("Emulation.setScriptExecutionDisabled", ["value": true], for: "javascript")
        {
            return refusal
        }
        if let cookies = options.cookies, !cookies.isEmpty,
            let refusal = try await call("Network.setCookies", ["cookies": cookies.map { cookieParameters($0, page: url) }], for: "cookies")
        {
            return refusal
        }
        if options.omitBackground == true,
            let refusal = try await call(
                "Emulation.setDefaultBackgroundColorOverride",
                ["color": ["r": 0, "g": 0, "b": 0, "a": 0]],
                for: "omit_background"
            )
        {
            return refusal
        }
        if options.failOnConsoleExceptions == true { try await pipe.call("Runtime.enable", session: session) }
        if watch.intercepts {
            try await pipe.call("Fetch.enable", ["patterns": [["urlPattern": "*", "requestStage": "Request"]]], session: session)
        }
        return nil
    }

    /// `Network.setCookies` parameters: without a domain, the cookie belongs to the page's host
    /// alone (a host-only cookie, as the page's own `Set-Cookie` without `Domain` would be).
    static func cookieParameters(_ cookie: BrowserOptions.Cookie, page: String) -> [String: Any] {
        var parameters: [String: Any] = ["name": cookie.name, "value": cookie.value, "path": cookie.path ?? "/"]
        if let domain = cookie.domain { parameters["domain"] = domain } else { parameters["url"] = page }
        if let secure = cookie.secure { parameters["secure"] = secure }
        if let httpOnly = cookie.httpOnly { parameters["httpOnly"] = httpOnly }
        if let sameSite = cookie.sameSite { parameters["sameSite"] = sameSite.rawValue }
        return parameters
    }

    // MARK: - Waiting

    /// After the page settled, in Gotenberg's order: the expression, the selector, the delay.
    /// Each ends by the time printing must start; one that has not is the job's failure, named.
    static func waitBeforePrinting(watch: ChromiumPageWatch, pipe: DevToolsPipe) async throws -> JobFailure? {
        let options = watch.options
        if let failure = watch.failure { return failure }
        if let expression = options.waitForExpression {
            let refusal = try await poll(until: "wait_for_expression \(quoted(expression)) to become truthy", watch: watch, pipe: pipe) {
                try await evaluate(expression, option: "wait_for_expression", booleanOnly: options.gotenbergWaits, watch: watch, pipe: pipe)
            }
            if let refusal { return refusal }
        }
        if let selector = options.waitForSelector {
            let literal = String(decoding: try JSONSerialization.data(withJSONObject: selector, options: .fragmentsAllowed), as: UTF8.self)
            // Visible as chromedp's WaitVisible has it: in the layout with a box of some size.
            let script = """
                (() => { const e = document.querySelector(\(literal)); if (!e) return false;
                const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; })()
                """
            let refusal = try await poll(until: "wait_for_selector \(quoted(selector)) to match a visible element", watch: watch, pipe: pipe) {
                try await evaluate(script, option: "wait_for_selector", watch: watch, pipe: pipe)
            }
            if let refusal { return refusal }
        }
        if let delay = options.waitDelay, delay > 0 {
            let end = ContinuousClock.now + .milliseconds(Int64(delay * 1000))
            let printBy = printBy(pipe)
            if end > printBy { return waitTimedOut("wait_delay of \(delay) s", printBy: printBy) }
            // Reading events meanwhile: paused requests are answered, failures noted.
            while try await pipe.nextEvent(until: end) != nil {
                if let failure = watch.failure { return failure }
            }
        }
        return watch.failure
    }

    /// Checks `condition` every 100 ms until it holds, the page fails the job, or printing must begin.
    private static func poll(
        until what: String,
        watch: ChromiumPageWatch,
        pipe: DevToolsPipe,
        _ condition: () async throws -> Evaluation
    ) async throws -> JobFailure? {
        let printBy = printBy(pipe)
        while true {
            if let failure = watch.failure { return failure }
            switch try await condition() {
            case .truthy: return nil
            case .falsy: break
            case .failed(let refusal): return refusal
            case .timedOut: return waitTimedOut(what, printBy: printBy)
            }
            let next = ContinuousClock.now + .milliseconds(100)
            if next >= printBy { return waitTimedOut(what, printBy: printBy) }
            while try await pipe.nextEvent(until: next) != nil {}
        }
    }

    private enum Evaluation {
        case truthy, falsy, timedOut
        case failed(JobFailure)
    }

    /// Evaluates `expression` in the page (awaiting a promise) and judges it as JavaScript would.
    private static func evaluate(
        _ expression: String,
        option: String,
        booleanOnly: Bool = false,
        watch: ChromiumPageWatch,
        pipe: DevToolsPipe
    ) async throws -> Evaluation {
        // A promise that never settles must not hold the pipe past the printing time.
        let deadline = pipe.deadline
        pipe.deadline = printBy(pipe)
        defer { pipe.deadline = deadline }
        let answer: [String: Any]
        do {
            answer = try await pipe.call(
                "Runtime.evaluate",
                ["expression": expression, "awaitPromise": true, "returnByValue": true],
                session: watch.session
            )
        } catch let failure as DevToolsPipe.Failure where failure.description.contains("did not answer") {
            return .timedOut
        }
        if let details = answer["exceptionDetails"] as? [String: Any] {
            let exception = (details["exception"] as? [String: Any])?["description"] as? String ?? details["text"] as? String ?? "an exception"
            return .failed(
                JobFailure(
                    .rejected,
                    code: "invalid_\(option)",
                    "options.\(option) threw in the page: \(exception.prefix { $0 != "\n" })"
                )
            )
        }
        let result = answer["result"] as? [String: Any] ?? [:]
        // Gotenberg reads the answer into a boolean: null is false, anything else not one fails.
        if booleanOnly, !["boolean"].contains(result["type"] as? String), result["subtype"] as? String != "null" {
            return .failed(
                JobFailure(
                    .rejected,
                    code: "invalid_\(option)",
                    "options.\(option) answered \(result["type"] as? String ?? "something") in the page, not true or false"
                )
            )
        }
        return isTruthy(result) ? .truthy : .falsy
    }

    /// JavaScript's truthiness of a DevTools `RemoteObject`.
    static func isTruthy(_ object: [String: Any]) -> Bool {
        switch object["type"] as? String {
        case "boolean": return object["value"] as? Bool == true
        case "number":
            if let special = object["unserializableValue"] as? String { return special != "NaN" && special != "-0" }
            return (object["value"] as? Double).map { $0 != 0 } ?? false
        case "string": return !(object["value"] as? String ?? "").isEmpty
        case "bigint": return object["unserializableValue"] as? String != "0n"
        case "undefined": return false
        case "object": return object["subtype"] as? String != "null"
        default: return true
        }
    }

    private static func waitTimedOut(_ what: String, printBy: ContinuousClock.Instant) -> JobFailure {
        JobFailure(.timedOut, code: "wait_timed_out", "Chromium waited for \(what), but the job's deadline came first")
    }

    private static func quoted(_ text: String) -> String {
        "\"" + (text.count > 120 ? text.prefix(120) + "…" : text) + "\""
    }

    // MARK: - Printing

    /// `Page.printToPDF` parameters for the job's options; unset ones keep Chromium's defaults
    /// (Letter, portrait, 0.4 in margins, scale 1, no backgrounds, no header or footer).
    /// `pageSizeFromCSS` is the default of `prefer_css_page_size` (true for uploaded pages, whose
    /// options come as CSS). A single page asks the page for its height first.
    static func parameters(for options: ConversionOptions, pageSizeFromCSS: Bool, session: String, pipe: DevToolsPipe) async throws -> [String: Any] {
        var parameters: [String: Any] = ["transferMode": "ReturnAsStream", "displayHeaderFooter": false]
        if let width = options.paperWidth, let height = options.paperHeight, width > 0, height > 0 {
            parameters["paperWidth"] = width
            parameters["paperHeight"] = height
        }
        if let landscape = options.landscape { parameters["landscape"] = landscape }
        // Chromium's own default is 0.4 in a side.
        let margins = options.margins(fallback: 0.4)
        if let margins {
            parameters["marginTop"] = margins.top
            parameters["marginBottom"] = margins.bottom
            parameters["marginLeft"] = margins.left
            parameters["marginRight"] = margins.right
        }
        if let background = options.printsBackground { parameters["printBackground"] = background }
        let browser = options.browser
        parameters["preferCSSPageSize"] = browser.preferCSSPageSize ?? pageSizeFromCSS
        if let scale = browser.scale { parameters["scale"] = scale }
        if let ranges = browser.pageRanges { parameters["pageRanges"] = ranges }
        if browser.headerHTML != nil || browser.footerHTML != nil {
            // An empty template, not Chromium's default (date and title) for the one not given.
            parameters["displayHeaderFooter"] = true
            parameters["headerTemplate"] = browser.headerHTML ?? "<span></span>"
            parameters["footerTemplate"] = browser.footerHTML ?? "<span></span>"
        }
        if browser.generateTaggedPDF == true || browser.generateDocumentOutline == true { parameters["generateTaggedPDF"] = true }
        if browser.generateTaggedPDF == false && browser.generateDocumentOutline != true { parameters["generateTaggedPDF"] = false }
        // Chromium derives the outline from the structure tree: it needs the tags.
        if let outline = browser.generateDocumentOutline { parameters["generateDocumentOutline"] = outline }
        if browser.singlePage == true {
            // As Gotenberg does: the paper as tall as the content (96 CSS px an inch) plus the
            // margins, and only the first page kept in case the print layout runs over.
            let metrics = try await pipe.call("Page.getLayoutMetrics", session: session)
            let content = metrics["cssContentSize"] as? [String: Any] ?? [:]
            let height = (content["height"] as? Double ?? 0) / 96
            let width = (content["width"] as? Double ?? 0) / 96
            let vertical = margins.map { $0.top + $0.bottom } ?? 0.8
            if options.landscape == true {
                parameters["paperWidth"] = height + vertical
                parameters["paperHeight"] = width + (margins.map { $0.left + $0.right } ?? 0.8)
            } else {
                parameters["paperWidth"] = options.paperWidth ?? 8.5
                parameters["paperHeight"] = height + vertical
            }
            parameters["preferCSSPageSize"] = false
            parameters["pageRanges"] = "1"
        }
        return parameters
    }
}
