import NIOHTTP1

/// A proxied request's head, as NIOHTTP1 decoded it: what to check, and what to send on.
/// Only the two forms a browser sends a proxy count: `CONNECT host:port`, and a plain-HTTP
/// request in absolute form (a proxy is never asked for a path alone, and https never comes in
/// the clear).
struct ProxyRequest: Equatable {
    /// The URL the SSRF rules judge: `https://host:port/` for CONNECT.
    var url: String
    /// For plain HTTP: the head to send the origin (origin-form target, `Connection: close`);
    /// nil for CONNECT, which sends nothing on but the client's own bytes.
    var forwardedHead: HTTPRequestHead?
    /// A page or frame load rather than a subresource, by the headers Chromium sends only
    /// with navigations.
    var isNavigation = false

    var isConnect: Bool { forwardedHead == nil }

    /// Headers about the hop to the proxy, not the request: the origin gets none of them.
    private static let hopHeaders: Set<String> = ["connection", "proxy-connection", "proxy-authorization", "keep-alive"]

    init?(_ head: HTTPRequestHead) {
        let target = head.uri
        if head.method == .CONNECT {
            guard !target.contains("/"), target.contains(":") else { return nil }
            url = "https://\(target)/"
            forwardedHead = nil
            return
        }
        guard target.lowercased().hasPrefix("http://") else { return nil }
        url = target
        let afterScheme = target.index(target.startIndex, offsetBy: "http://".count)
        let pathStart = target[afterScheme...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? target.endIndex
        var path = String(target[pathStart...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var headers = HTTPHeaders()
        for (name, value) in head.headers {
            let lowered = name.lowercased()
            if (lowered == "sec-fetch-mode" && value.lowercased() == "navigate") || lowered == "upgrade-insecure-requests" {
                isNavigation = true
            }
            if !Self.hopHeaders.contains(lowered) { headers.add(name: name, value: value) }
        }
        headers.add(name: "Connection", value: "close")
        forwardedHead = HTTPRequestHead(version: head.version, method: head.method, uri: path, headers: headers)
    }
}
