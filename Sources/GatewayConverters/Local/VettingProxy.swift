import Foundation
import GatewayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The forward proxy that Chromium sends every request of one conversion through (its browser
/// context's proxy is a `ProxyListener`, loopback included, routed here for the job). Each request — the page, every redirect hop, every
/// image, script and frame — has its URL checked against the SSRF rules, its host resolved once
/// here, and the connection made to the address that was checked. So a redirect to a private
/// address is refused like the URL itself, and DNS rebinding cannot switch an address between
/// the check and the fetch: Chromium never resolves a name.
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
final class VettingProxy: Sendable {
    /// What the proxy refused or could not reach, in order.
    /// `navigation` is true for a page or frame load, false for a subresource, and nil when the
    /// proxy cannot tell (CONNECT shows only the host).
    enum Note: Sendable, Equatable {
        case refused(JobFailure, navigation: Bool?)
        case unreachable(String, navigation: Bool?)

        var navigation: Bool? {
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
        /// An uploaded page: `file` answered at `url` with `policy` as its CSP, the files of its
        /// bundle (path → file) beside it on the same origin; nothing else.
        case serving(file: String, url: String, assets: [String: String], policy: String)
    }

    private struct State {
        var connections: Set<Int32> = []
        var notes: [Note] = []
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

    /// Largest request head accepted; Chromium's are a few KiB.
    static let maxHeadBytes = 64 * 1024
    /// How long connecting to an origin may take before the request counts as unreachable.
    static let connectTimeoutMilliseconds: Int32 = 10_000

    /// A proxy for printing `page`; connections come from a `ProxyListener` routed to it.
    convenience init(page: String, urlGuard: URLGuard) throws(JobFailure) {
        let target = try urlGuard.check.checkSyntax(page)
        self.init(mode: .vetting(urlGuard, page: "\(target.host):\(target.port)"))
    }

    /// A proxy that answers `url` (plain `http:`) with the HTML in `file`, `assets` (a bundle's
    /// files by their paths) at the same origin, and refuses anything else.
    convenience init(serving file: String, at url: String, assets: [String: String] = [:], contentSecurityPolicy: String) {
        self.init(mode: .serving(file: file, url: url, assets: assets, policy: contentSecurityPolicy))
    }

    private init(mode: Mode) {
        self.mode = mode
    }

    /// Serves one connection a listener accepted, on a thread of its own; closes it once stopped.
    func serve(_ client: Int32) {
        guard track(client) else { return }
        startThread("pdfgate-vetting-proxy-connection") { [self] in
            handle(client)
            untrackAndClose(client)
        }
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    var notes: [Note] { state.withLock { $0.notes } }

    /// Refuses new connections and cuts every open one; their threads then end.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    // MARK: - Connections

    /// Remembers a socket so `stop()` can cut it; false (and closed) once stopped.
    private func track(_ fd: Int32) -> Bool {
        let accepted = state.withLock { state in
            if !state.stopped { state.connections.insert(fd) }
            return !state.stopped
        }
        if !accepted { close(fd) }
        return accepted
    }

    private func untrackAndClose(_ fd: Int32) {
        state.withLock { state in
            state.connections.remove(fd)
            close(fd)  // under the lock: `stop()` must never shut down a number reused since
        }
    }

    private func note(_ note: Note) {
        state.withLock { $0.notes.append(note) }
    }

    private func handle(_ client: Int32) {
        guard let (head, leftover) = Self.readHead(client), let request = ProxyRequest(head: head) else {
            _ = Self.sendAll(client, Array("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        switch mode {
        case .serving(let file, let url, let assets, let policy):
            if !request.isConnect && request.url == url {
                Self.sendPage(client, file: file, policy: policy)
            } else if !request.isConnect, let asset = Self.asset(request.url, beside: url, in: assets) {
                Self.sendFile(client, file: asset, type: MediaTypes.mediaType(ofFile: asset), policy: policy)
            } else if request.isConnect {
                _ = Self.sendAll(client, Array("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            }
        case .vetting(let urlGuard, let page):
            forward(client, request, leftover: leftover, urlGuard: urlGuard, page: page)
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

    /// The uploaded page, with its CSP as a header and nothing cached.
    private static func sendPage(_ client: Int32, file: String, policy: String) {
        sendFile(client, file: file, type: "text/html", policy: policy)
    }

    private static func sendFile(_ client: Int32, file: String, type: String, policy: String) {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            _ = sendAll(client, Array("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: 0)
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(size)\r\nContent-Security-Policy: \(policy)\r\n"
            + "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        guard sendAll(client, Array(head.utf8)) else { return }
        while let chunk = try? handle.read(upToCount: 64 * 1024), !chunk.isEmpty {
            guard sendAll(client, Array(chunk)) else { return }
        }
    }

    /// Vets a request for someone else's page and splices it to the address that was checked.
    private func forward(_ client: Int32, _ request: ProxyRequest, leftover: [UInt8], urlGuard: URLGuard, page: String) {
        let vetted: VettedURL
        let navigation = request.isConnect ? nil : request.isNavigation
        guard isThePagesRequest(request, urlGuard: urlGuard, page: page) else { return }
        do {
            vetted = try blockingVet(request.url, urlGuard: urlGuard)
        } catch {
            let failure = error as? JobFailure ?? JobFailure(.rejected, code: "url_forbidden", "refusing to fetch \(request.url): \(error)")
            note(.refused(failure, navigation: navigation))
            if request.isConnect {
                _ = Self.sendAll(client, Array("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            }
            return  // plain HTTP: no answer at all, so Chromium fails the load instead of printing one
        }
        guard let origin = connectToAny(vetted, navigation: navigation) else {
            if request.isConnect {
                _ = Self.sendAll(client, Array("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            }
            return
        }
        guard track(origin) else { return }
        defer { untrackAndClose(origin) }
        if request.isConnect {
            guard Self.sendAll(client, Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)) else { return }
        } else {
            guard Self.sendAll(origin, request.forwardedHead) else { return }
        }
        if !leftover.isEmpty, !Self.sendAll(origin, leftover) { return }
        Self.splice(client, origin)
    }

    /// False for Chromium's own traffic: anything before the page is asked for, and its known
    /// service hosts at any time. Those get no answer and leave no note.
    private func isThePagesRequest(_ request: ProxyRequest, urlGuard: URLGuard, page: String) -> Bool {
        guard let (host, port, _) = try? urlGuard.check.checkSyntax(request.url) else { return true }  // vet() says why
        if Self.chromiumServices.contains(host) { return false }
        return state.withLock { state in
            if "\(host):\(port)" == page { state.pageRequested = true }
            return state.pageRequested
        }
    }

    /// `URLGuard.vet` is async (its resolver runs off the cooperative pool); this thread just waits.
    private func blockingVet(_ url: String, urlGuard: URLGuard) throws -> VettedURL {
        let result = Mutex<Result<VettedURL, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<VettedURL, any Error>
            do { outcome = .success(try await urlGuard.vet(url)) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Connects to the first of the checked addresses that answers, within the timeout.
    private func connectToAny(_ vetted: VettedURL, navigation: Bool?) -> Int32? {
        var reasons: [String] = []
        for address in vetted.addresses {
            switch Self.connect(to: address, port: vetted.port) {
            case .success(let fd): return fd
            case .failure(let reason): reasons.append("\(address): \(reason)")
            }
        }
        note(.unreachable("could not connect to \(vetted.host):\(vetted.port) (\(reasons.joined(separator: "; ")))", navigation: navigation))
        return nil
    }

    private enum ConnectResult {
        case success(Int32)
        case failure(String)
    }

    private static func connect(to address: IPAddress, port: Int) -> ConnectResult {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        switch address {
        case .v4(let value):
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    v4.pointee.sin_family = sa_family_t(AF_INET)
                    v4.pointee.sin_port = UInt16(port).bigEndian
                    v4.pointee.sin_addr.s_addr = value.bigEndian
                }
            }
        case .v6(let bytes):
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    v6.pointee.sin6_family = sa_family_t(AF_INET6)
                    v6.pointee.sin6_port = UInt16(port).bigEndian
                    withUnsafeMutableBytes(of: &v6.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
                }
            }
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(String(cString: strerror(errno))) }
        let started = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if started != 0 && errno != EINPROGRESS {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(reason)
        }
        if started != 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, connectTimeoutMilliseconds)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            if ready <= 0 || error != 0 {
                close(fd)
                return .failure(ready <= 0 ? "timed out" : String(cString: strerror(error)))
            }
        }
        // Back to blocking for the splice, which polls before each read.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(fd)
    }

    // MARK: - Bytes

    /// Reads up to the blank line that ends a request head; returns it and whatever followed.
    private static func readHead(_ fd: Int32) -> (head: String, leftover: [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while buffer.count <= maxHeadBytes {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            let searchFrom = max(0, buffer.count - 3)
            buffer.append(contentsOf: chunk[0..<count])
            var index = searchFrom
            while index + 4 <= buffer.count {
                if buffer[index] == 13, buffer[index..<index + 4].elementsEqual(terminator) {
                    let head = String(decoding: buffer[0..<index + 4], as: UTF8.self)
                    return (head, Array(buffer[(index + 4)...]))
                }
                index += 1
            }
        }
        return nil
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                sent += count
            }
            return true
        }
    }

    /// Copies both ways until both directions have ended (or either side fails).
    private static func splice(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while open[0] || open[1] {
            for i in 0..<2 where !open[i] { fds[i].fd = -1 }  // poll skips it (a hung-up fd would wake it forever)
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let (from, to) = i == 0 ? (a, b) : (b, a)
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    // This direction is done: pass the end on, keep the other one flowing.
                    open[i] = false
                    shutdown(to, Int32(SHUT_WR))
                    if count < 0 { return }
                    continue
                }
                if !sendAll(to, Array(buffer[0..<count])) { return }
            }
        }
    }

    static func unavailable(_ message: String) -> JobFailure {
        JobFailure.converterUnavailable("the proxy that checks Chromium's requests could not start: \(message)")
    }
}

/// A proxied request's first line and headers: what to check, and what to send on.
struct ProxyRequest: Equatable {
    var isConnect: Bool
    /// The URL the SSRF rules judge: `https://host:port/` for CONNECT.
    var url: String
    /// For plain HTTP: the head to send the origin (origin-form target, `Connection: close`).
    var forwardedHead: [UInt8]
    /// A page or frame load rather than a subresource, by the headers Chromium sends only
    /// with navigations.
    var isNavigation = false

    init?(head: String) {
        var lines = head.components(separatedBy: "\r\n")
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return nil }
        let method = String(parts[0])
        let target = String(parts[1])
        if method == "CONNECT" {
            guard !target.contains("/"), target.contains(":") else { return nil }
            isConnect = true
            url = "https://\(target)/"
            forwardedHead = []
            return
        }
        // Absolute form only: a proxy is never asked for a path alone, and https never comes
        // in the clear.
        guard target.lowercased().hasPrefix("http://") else { return nil }
        isConnect = false
        url = target
        let afterScheme = target.index(target.startIndex, offsetBy: "http://".count)
        let pathStart = target[afterScheme...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? target.endIndex
        var path = String(target[pathStart...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        let dropped: Set<String> = ["connection", "proxy-connection", "proxy-authorization", "keep-alive"]
        var out = ["\(method) \(path) \(parts[2])"]
        for line in lines.dropFirst() {
            let name = line.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces).lowercased()
            let value = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces).lowercased()
            if (name == "sec-fetch-mode" && value == "navigate") || name == "upgrade-insecure-requests" { isNavigation = true }
            if !dropped.contains(name) { out.append(line) }
        }
        out.append("Connection: close")
        forwardedHead = Array((out.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
