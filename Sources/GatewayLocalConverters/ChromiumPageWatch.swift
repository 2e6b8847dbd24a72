import Foundation
import GatewayJobModel
import GatewaySandbox
import NIOHTTP1

/// Watches one page's session for what its job's options care about, fed every event by the
/// DevTools pipe's observer: it puts `extra_http_headers` on the requests in scope (through the
/// Fetch domain, since the vetting proxy only tunnels HTTPS and so cannot add them itself), and
/// notes the first thing a `fail_on_…` option fails the job for. Used on the print's thread only.
final class ChromiumPageWatch {
    let session: String
    let options: BrowserOptions
    private let page: String
    private let pageOrigin: Origin?
    private let scope: NSRegularExpression?
    /// The page's main frame; its `Document` request is the page itself.
    var mainFrame: String?
    private var mainRequest: String?
    /// Request ids to URLs and resource types (`Image`…), for `loadingFailed`, which names neither.
    private var urls: [String: String] = [:]
    private var types: [String: String] = [:]
    /// The first reason the job must fail other than the page's exceptions, if any.
    private var firstFailure: JobFailure?
    /// Every uncaught exception so far, under `fail_on_console_exceptions`: all of them are
    /// named, as Gotenberg lists them, not only the first.
    private var exceptions: [String] = []

    /// Every resource that failed to load, under `fail_on_resource_loading_failed`: all named, as
    /// Gotenberg joins them.
    private var failedResources: [(url: String, error: String, detail: String)] = []

    /// Why the job must fail, if it must: the first other reason, else the resources that failed
    /// to load, else the exceptions.
    var failure: JobFailure? {
        if let firstFailure { return firstFailure }
        if let first = failedResources.first {
            return Self.gathered(
                code: "resource_load_failed",
                "a resource of \(page), \(first.url), could not be loaded: \(first.error)",
                "fail_on_resource_loading_failed is set",
                details: failedResources.map(\.detail)
            )
        }
        guard let first = exceptions.first else { return nil }
        return Self.gathered(
            code: "page_console_exception",
            "\(page) threw an uncaught JavaScript exception, and fail_on_console_exceptions is set: \(Self.firstLine(first))",
            nil,
            details: exceptions
        )
    }

    /// One failure for everything of a kind the page did: the first named in the message, with
    /// how many more, and every one in the detail, a line each.
    private static func gathered(code: String, _ first: String, _ tail: String?, details: [String]) -> JobFailure {
        let more = details.count > 1 ? " (and \(details.count - 1) more)" : ""
        return JobFailure(.rejected, code: code, first + more + (tail.map { "; " + $0 } ?? ""), detail: details.joined(separator: "\n"))
    }

    /// Chromium's name for why the proxy failed a request (refused, origin unreachable), which
    /// Chromium itself sees only as a closed connection.
    private let netError: @Sendable (String) -> String?

    /// `ignore_resource_http_status_domains`, read once rather than at every response.
    private let ignoredDomains: [String]

    init(page: String, options: BrowserOptions, session: String, netError: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.netError = netError
        ignoredDomains = options.ignoredResourceStatusDomains
        self.page = page
        self.options = options
        self.session = session
        pageOrigin = Origin(page)
        scope = options.extraHTTPHeadersScope.flatMap { try? NSRegularExpression(pattern: $0) }
    }

    /// Whether request interception is needed: only for headers.
    var intercepts: Bool { !(options.extraHTTPHeaders ?? [:]).isEmpty }

    /// Handles `event`; true when it was consumed (a paused request, answered here).
    func observe(_ event: [String: Any], pipe: DevToolsPipe) -> Bool {
        guard event["sessionId"] as? String == session, let method = event["method"] as? String else { return false }
        let params = event["params"] as? [String: Any] ?? [:]
        switch method {
        case "Fetch.requestPaused":
            continuePaused(params, pipe: pipe)
            return true
        case "Network.requestWillBeSent":
            guard let id = params["requestId"] as? String else { return false }
            if let url = (params["request"] as? [String: Any])?["url"] as? String { urls[id] = url }
            if let type = params["type"] as? String { types[id] = type }
            if params["type"] as? String == "Document", params["frameId"] as? String == mainFrame { mainRequest = id }
        case "Network.responseReceived":
            responseReceived(params)
        case "Network.loadingFailed":
            loadingFailed(params)
        case "Runtime.exceptionThrown" where options.failOnConsoleExceptions == true:
            let details = params["exceptionDetails"] as? [String: Any] ?? [:]
            exceptions.append((details["exception"] as? [String: Any])?["description"] as? String ?? details["text"] as? String ?? "an exception")
        default:
            break
        }
        return false
    }

    private func responseReceived(_ params: [String: Any]) {
        guard let response = params["response"] as? [String: Any], let status = response["status"] as? Int else { return }
        let url = response["url"] as? String ?? "?"
        if status == 404, missingUploadedFile(params, url: url) { return }
        let statusText = (response["statusText"] as? String).map { $0.isEmpty ? "" : " \($0)" } ?? ""
        let isPage = params["requestId"] as? String == mainRequest && mainRequest != nil
        if isPage, let codes = options.failOnHTTPStatusCodes, BrowserOptions.status(status, isIn: codes) {
            fail(
                JobFailure(
                    .rejected,
                    code: "page_http_status",
                    "\(url) answered HTTP \(status)\(statusText), which fail_on_http_status_codes \(codes) refuses",
                    detail: "\(status): \(response["statusText"] as? String ?? "")"
                )
            )
        } else if !isPage, !isUploadedPagesIcon(url), let codes = options.failOnResourceHTTPStatusCodes, BrowserOptions.status(status, isIn: codes),
            !BrowserOptions.host(URL(string: url)?.host ?? "", isUnder: ignoredDomains)
        {
            fail(
                JobFailure(
                    .rejected,
                    code: "resource_http_status",
                    "a resource of \(page), \(url), answered HTTP \(status)\(statusText), which fail_on_resource_http_status_codes \(codes) refuses",
                    detail: "\(url) - \(status): \(HTTPResponseStatus(statusCode: status).reasonPhrase)"
                )
            )
        }
    }

    private func loadingFailed(_ params: [String: Any]) {
        guard options.failOnResourceLoadingFailed == true, let id = params["requestId"] as? String, id != mainRequest else { return }
        // The page's own cancellations (and ours, when printing stops a straggler) are no failure.
        var error = (params["errorText"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "net::ERR_FAILED"
        if params["canceled"] as? Bool == true || error == "net::ERR_ABORTED" || isUploadedPagesIcon(urls[id] ?? "") { return }
        // What the proxy knows beats what a closed connection or a refused tunnel told Chromium.
        let generic = ["net::ERR_FAILED", "net::ERR_EMPTY_RESPONSE", "net::ERR_TUNNEL_CONNECTION_FAILED", "net::ERR_PROXY_CONNECTION_FAILED"]
        if generic.contains(error), let known = netError(urls[id] ?? "") { error = known }
        let blocked = (params["blockedReason"] as? String).map { " (blocked: \($0))" } ?? ""
        failedResources.append((urls[id] ?? "?", error + blocked, "resource \(types[id] ?? "Other"): \(error)"))
    }

    /// Under Gotenberg's semantics a file the uploaded page's bundle lacks is what Gotenberg's
    /// `file://` page meets: a load that failed (`net::ERR_FILE_NOT_FOUND`), not an HTTP 404.
    private func missingUploadedFile(_ params: [String: Any], url: String) -> Bool {
        guard options.gotenbergWaits, page == ChromiumConverter.uploadedPageURL, VettingProxy.isOnOrigin(url, of: page),
            let id = params["requestId"] as? String, id != mainRequest
        else { return false }
        if options.failOnResourceLoadingFailed == true, !isUploadedPagesIcon(url) {
            failedResources.append((url, "net::ERR_FILE_NOT_FOUND", "resource \(types[id] ?? "Other"): net::ERR_FILE_NOT_FOUND"))
        }
        return true
    }

    /// The browser's own request for an uploaded page's icon, which no fail-on rule counts: the
    /// page did not ask for it, and Gotenberg's uploaded pages (files) never make it.
    private func isUploadedPagesIcon(_ url: String) -> Bool {
        page == ChromiumConverter.uploadedPageURL && URL(string: url)?.path == "/favicon.ico" && VettingProxy.isOnOrigin(url, of: page)
    }

    private func fail(_ reason: JobFailure) {
        if firstFailure == nil { firstFailure = reason }
    }

    /// Lets a paused request go on, with the extra headers when it is in their scope: a URL the
    /// scope expression matches, or by default the page's own origin.
    private func continuePaused(_ params: [String: Any], pipe: DevToolsPipe) {
        guard let id = params["requestId"] as? String else { return }
        let request = params["request"] as? [String: Any] ?? [:]
        let url = request["url"] as? String ?? ""
        var continuation: [String: Any] = ["requestId": id]
        if let extra = options.extraHTTPHeaders, inScope(url) {
            // `headers` replaces the request's own, so ours are merged into them.
            var headers = (request["headers"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
            for (name, value) in extra {
                headers = headers.filter { $0.key.caseInsensitiveCompare(name) != .orderedSame }
                headers[name] = value
            }
            continuation["headers"] = headers.map { ["name": $0.key, "value": $0.value] }
        }
        // Not awaited: the answer would come while some other call waits, which drops it.
        _ = try? pipe.send("Fetch.continueRequest", continuation, session: session)
    }

    func inScope(_ url: String) -> Bool {
        if let scope { return scope.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil }
        guard let pageOrigin else { return false }
        return Origin(url) == pageOrigin
    }

    private static func firstLine(_ text: String) -> String {
        String(text.prefix { $0 != "\n" }.prefix(500))
    }

    /// Scheme, host and port, with the scheme's default port filled in.
    struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: String) {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                let host = components.host?.lowercased(), !host.isEmpty
            else { return nil }
            guard let port = components.port ?? ["http": 80, "https": 443][scheme] else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = port
        }
    }
}
