/// Limits and policies shared by every request of one `HTTPClient`.
public struct HTTPClientConfiguration: Sendable {
    /// Abort when fewer than `bytesPerSecond` move for `duration`: catches a peer that stalls
    /// without closing. It also counts time spent waiting for the response to start, so leave it
    /// off for servers that think before answering (converters) and rely on a total timeout.
    public struct LowSpeedLimit: Sendable {
        /// The minimum average rate, in bytes per second.
        public var bytesPerSecond: Int
        /// How long the rate may stay below the minimum (whole seconds; rounded up).
        public var duration: Duration

        /// A low-speed rule.
        public init(bytesPerSecond: Int, duration: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.duration = duration
        }
    }

    /// Which proxy, if any, requests go through.
    public enum Proxy: Sendable {
        /// The process's proxy variables, either spelling: `http_proxy`/`HTTP_PROXY`,
        /// `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`, and `no_proxy`/`NO_PROXY` for
        /// exceptions (see `EnvironmentProxy`).
        case environment
        /// The same rules applied to these variables instead of the process's.
        case variables([String: String])
        /// Always connect directly, whatever the environment says.
        case direct
        /// Always use this proxy URL, e.g. `http://proxy.internal:3128`.
        case url(String)
    }

    /// Limit on establishing the TCP (and TLS) connection.
    public var connectTimeout: Duration
    /// Limit on a whole exchange, connect to last byte; nil for none. A per-request timeout
    /// passed to `execute` replaces it.
    public var totalTimeout: Duration?
    /// Abort transfers slower than this; nil for none.
    public var lowSpeedLimit: LowSpeedLimit?
    /// Whether libcurl follows 3xx answers itself. Off by default: the SSRF layer must check each
    /// hop, so callers follow `HTTPResponse.redirectURL` themselves.
    public var followRedirects: Bool
    /// Hops allowed when `followRedirects` is on.
    public var maxRedirects: Int
    /// Upper bound on a body streamed into a `.file` sink; nil for none.
    public var maxResponseFileBytes: Int64?
    /// Proxy selection.
    public var proxy: Proxy
    /// The `User-Agent` sent unless a request sets its own.
    public var userAgent: String

    /// A configuration; the defaults suit calls to a converter on the local network.
    public init(
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration? = nil,
        lowSpeedLimit: LowSpeedLimit? = nil,
        followRedirects: Bool = false,
        maxRedirects: Int = 5,
        maxResponseFileBytes: Int64? = nil,
        proxy: Proxy = .environment,
        userAgent: String = "pdfgate/0.1"
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.followRedirects = followRedirects
        self.maxRedirects = maxRedirects
        self.maxResponseFileBytes = maxResponseFileBytes
        self.proxy = proxy
        self.userAgent = userAgent
    }
}
