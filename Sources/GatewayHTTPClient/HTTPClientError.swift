import GatewayCore

/// Why an HTTP exchange failed before a complete response arrived. An HTTP error status is not
/// one of these: a 4xx or 5xx answer is a response, for the caller to classify.
public struct HTTPClientError: GatewayError, Equatable {
    /// The failure classes callers act on differently.
    public enum Kind: String, Sendable, CaseIterable {
        /// No connection: refused, unreachable, name not resolved, or the connect timeout passed.
        case connectFailed = "connect_failed"
        /// The whole exchange outlasted its total timeout.
        case timedOut = "timed_out"
        /// Data moved slower than the configured low-speed limit for too long.
        case tooSlow = "too_slow"
        /// The peer reset or closed the connection before answering, or a send/receive failed.
        case connectionReset = "connection_reset"
        /// The connection closed before the announced body length had arrived.
        case truncated = "truncated_response"
        /// TLS handshake or certificate verification failed.
        case tls = "tls_failed"
        /// The response body was larger than the sink's limit.
        case responseTooLarge = "response_too_large"
        /// The URL is not an absolute http(s) URL curl accepts.
        case invalidURL = "invalid_url"
        /// The request itself is malformed (bad method token, CR/LF in a header).
        case invalidRequest = "invalid_request"
        /// A local file could not be read (request body) or written (response sink).
        case localFile = "local_file_error"
        /// Anything else libcurl reported.
        case other = "http_transfer_failed"
    }

    /// The failure class.
    public var kind: Kind
    /// What failed, naming the method, the host and libcurl's own explanation.
    public var message: String
    /// Stable snake_case code, one per kind.
    public var code: String { kind.rawValue }

    /// Whether retrying the same request later may succeed: the network or the peer failed, not the request.
    public var isTransient: Bool {
        switch kind {
        case .connectFailed, .timedOut, .tooSlow, .connectionReset, .truncated: true
        case .tls, .responseTooLarge, .invalidURL, .invalidRequest, .localFile, .other: false
        }
    }

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// A failure found on the transfer loop's thread, before the message gets its `METHOD host` prefix.
struct TransferFailure: Error {
    var kind: HTTPClientError.Kind
    var detail: String

    init(_ kind: HTTPClientError.Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }
}
