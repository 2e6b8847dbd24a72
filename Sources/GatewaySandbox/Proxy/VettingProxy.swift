import Foundation
import GatewayJobModel
import GatewayURLSecurity
import NIOCore
import NIOHTTP1
import Synchronization

/// The forward proxy that Chromium sends every request of one conversion through (its browser
/// context's proxy is a `ProxyListener`, loopback included, routed here for the job). Each
/// request — the page, every redirect hop, every image, script and frame — has its URL checked
/// against the SSRF rules, its host resolved once here, and the connection made to the address
/// that was checked. So a redirect to a private address is refused like the URL itself, and DNS
/// rebinding cannot switch an address between the check and the fetch: Chromium never resolves
/// a name.
///
/// HTTPS arrives as `CONNECT host:port` and is spliced through untouched (the check needs only
/// the host); plain HTTP arrives in absolute form and is forwarded with `Connection: close`,
/// so a connection never carries a second request for another host. A refused request gets no
/// answer (HTTP) or a 403 (CONNECT): either way Chromium fails that load, and `notes` tells the
/// converter why, so a refused page becomes a rejection that names the rule.
///
/// For uploaded HTML it serves the page itself instead (`init(serving:at:contentSecurityPolicy:)`)
/// and refuses everything else: the page then has an `http:` origin, from which Chromium loads
/// and navigates to no `file:` URL, and its CSP comes as a header that no markup can undo.
///
/// Connections run on swift-nio's shared event loops (`ProxyRequestHandler`, `PageServingHandler`):
/// a page with a hundred frames costs a hundred channels, not a hundred threads.
package final class VettingProxy: Sendable {
    /// What the proxy refused or could not reach, in order.
    /// `navigation` is true for a page or frame load, false for a subresource, and nil when the
    /// proxy cannot tell (CONNECT shows only the host).
    package enum Note: Sendable, Equatable {
        case refused(JobFailure, navigation: Bool?)
        case unreachable(String, navigation: Bool?)

        package var navigation: Bool? {
            switch self {
            case .refused(_, let navigation), .unreachable(_, let navigation): navigation
            }
        }
    }

    private let mode: Mode
    private let state = Mutex(State())

    private enum Mode: Sendable {
        /// Someone else's page at `page` (`host:port`): every request vetted and forwarded.
        case vetting(URLGuard, page: String)
        /// An uploaded page, and nothing else.
        case serving(ServedPage)
    }

    private struct State {
        /// Every open channel, the browser's and the origins', so `stop()` can cut them.
        var channels: [ObjectIdentifier: any Channel] = [:]
        var notes: [Note] = []
        /// Chromium's names for what became of requests it only saw fail, by URL (`host:port`
        /// for a CONNECT): refused here, or their origin unreachable.
        var netErrors: [String: String] = [:]
        var stopped = false
        /// Whether Chromium has asked for the page yet; before that, requests are its own.
        var pageRequested = false
    }

    /// Chromium's own services, which it calls even with background networking off (component
    /// updates, sign-in, network time). Refused without a DNS lookup: they are not the page's,
    /// and a conversion should not tell Google about itself.
    static let chromiumServices: Set<String> = [
        "accounts.google.com", "update.googleapis.com", "clients1.google.com", "clients2.google.com", "clients3.google.com",
        "clients4.google.com", "clientservices.googleapis.com", "safebrowsing.googleapis.com", "safebrowsing.google.com",
        "content-autofill.googleapis.com", "optimizationguide-pa.googleapis.com", "android.clients.google.com",
        "redirector.gvt1.com", "edgedl.me.gvt1.com", "dl.google.com",
    ]

    /// Chromium's request heads are a few KiB; a larger one is no browser's, and gets a 400.
    static let limits: NIOHTTPDecoderLimitConfiguration = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = 64 * 1024
        limits.maxHeaderFieldSize = 64 * 1024
        return limits
    }()

    /// A proxy for printing `page`; connections come from a `ProxyListener` routed to it.
    package convenience init(page: String, urlGuard: URLGuard) throws(JobFailure) {
        let target = try urlGuard.check.checkSyntax(page)
        self.init(mode: .vetting(urlGuard, page: "\(target.host):\(target.port)"))
    }

    /// A proxy that answers `url` (plain `http:`) with the HTML in `file`, `assets` (a bundle's
    /// files by their paths) at the same origin, and refuses anything else.
    package convenience init(serving file: String, at url: String, assets: [String: String] = [:], contentSecurityPolicy: String) {
        self.init(mode: .serving(ServedPage(file: file, url: url, assets: assets, policy: contentSecurityPolicy)))
    }

    private init(mode: Mode) {
        self.mode = mode
    }

    package var notes: [Note] { state.withLock { $0.notes } }

    /// Refuses new connections and cuts every open one.
    package func stop() {
        let open = state.withLock { state in
            state.stopped = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in open { channel.close(promise: nil) }
    }

    deinit { stop() }

    // MARK: - Connections

    /// Takes a connection a listener accepted (called on its event loop, before it is
    /// registered): HTTP/1 in, this proxy's handler behind it. Fails, so the listener closes it
    /// unanswered, once stopped.
    func adopt(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard track(channel) else { return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            // A CONNECT's tunnel may start in the same packet as its head: the decoder passes those bytes on.
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes, limitConfiguration: Self.limits)))
            // Every answer here sets its own framing: a CONNECT's 200 must have none at all.
            var encoding = HTTPResponseEncoder.Configuration()
            encoding.automaticallySetFramingHeaders = false
            try pipeline.addHandler(HTTPResponseEncoder(configuration: encoding))
            switch mode {
            case .vetting(let urlGuard, let page):
                try pipeline.addHandler(ProxyRequestHandler(proxy: self, urlGuard: urlGuard, page: page))
            case .serving(let served):
                try pipeline.addHandler(PageServingHandler(page: served))
            }
        }
    }

    /// Remembers a channel so `stop()` can cut it until it closes; false (and closed) once stopped.
    func track(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let accepted = state.withLock { state in
            if !state.stopped { state.channels[key] = channel }
            return !state.stopped
        }
        guard accepted else {
            channel.close(promise: nil)
            return false
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.channels.removeValue(forKey: key) }
        }
        return true
    }

    func note(_ note: Note) {
        state.withLock { $0.notes.append(note) }
    }

    /// Records Chromium's name for the failure of `request`, which Chromium itself only sees as
    /// a closed connection or a refused tunnel.
    func noteNetError(_ error: String, for request: ProxyRequest) {
        let key = request.isConnect ? Self.hostAndPort(request.url) : request.url
        state.withLock { $0.netErrors[key ?? request.url] = error }
    }

    /// Chromium's name for why `url` failed to load, as its network stack would have said it
    /// had it connected itself (`net::ERR_CONNECTION_REFUSED`, `net::ERR_ACCESS_DENIED` for what
    /// the rules refused); nil when the proxy knows nothing of it.
    package func netError(for url: String) -> String? {
        state.withLock { state in state.netErrors[url] ?? Self.hostAndPort(url).flatMap { state.netErrors[$0] } }
    }

    private static func hostAndPort(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        let port = components.port ?? (components.scheme == "https" || components.scheme == "wss" ? 443 : 80)
        return "\(host.lowercased()):\(port)"
    }

    /// False for Chromium's own traffic: anything before the page is asked for, and its known
    /// service hosts at any time. Those get no answer and leave no note.
    func isThePagesRequest(_ request: ProxyRequest, urlGuard: URLGuard, page: String) -> Bool {
        guard let (host, port, _) = try? urlGuard.check.checkSyntax(request.url) else { return true }  // vet() says why
        if Self.chromiumServices.contains(host) { return false }
        return state.withLock { state in
            if "\(host):\(port)" == page { state.pageRequested = true }
            return state.pageRequested
        }
    }

    /// The file of the bundle that `requested` names, on the page's origin; nil for any other.
    static func asset(_ requested: String, beside page: String, in assets: [String: String]) -> String? {
        guard !assets.isEmpty, let origin = URL(string: page).flatMap({ $0.host }), let target = URL(string: requested),
            target.scheme == "http", target.host == origin
        else { return nil }
        let path = target.path.hasPrefix("/") ? String(target.path.dropFirst()) : target.path
        return assets[path] ?? path.removingPercentEncoding.flatMap { assets[$0] }
    }

    /// Whether `requested` is an `http:` URL on the origin of `page`.
    package static func isOnOrigin(_ requested: String, of page: String) -> Bool {
        guard let origin = URL(string: page).flatMap({ $0.host }), let target = URL(string: requested) else { return false }
        return target.scheme == "http" && target.host == origin
    }

    package static func unavailable(_ message: String) -> JobFailure {
        JobFailure.converterUnavailable("the proxy that checks Chromium's requests could not start: \(message)")
    }
}
