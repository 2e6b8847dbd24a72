/// The proxy the environment asks for, chosen here rather than by libcurl: libcurl ignores
/// uppercase `HTTP_PROXY` (under CGI a request's `Proxy:` header arrives as that variable), but
/// the gateway is a server, not a CGI script, and operators set either spelling.
struct EnvironmentProxy: Equatable {
    /// `CURLOPT_PROXY`: a proxy URL, or empty for a direct connection.
    var proxy: String
    /// `CURLOPT_NOPROXY`: hosts that bypass the proxy, as `no_proxy` writes them; nil for none.
    var noProxy: String?

    /// For `url`: `http_proxy`/`HTTP_PROXY` for http, `https_proxy`/`HTTPS_PROXY` for https,
    /// else `all_proxy`/`ALL_PROXY`; lowercase first, as curl and most tools read them.
    init(for url: String, environment: [String: String]) {
        func variable(_ name: String) -> String? {
            for key in [name.lowercased(), name.uppercased()] {
                if let value = environment[key], !value.isEmpty { return value }
            }
            return nil
        }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        proxy = variable("\(scheme)_proxy") ?? variable("all_proxy") ?? ""
        noProxy = variable("no_proxy")
    }
}
