/// Where a response body goes.
public enum HTTPResponseSink: Sendable {
    /// Into `HTTPResponse.body`, for small answers such as JSON; past `limit` bytes the transfer
    /// is aborted with `.responseTooLarge`.
    case memory(limit: Int)
    /// Streamed into a file created (or truncated) at `path`; removed again if the exchange fails
    /// or is cancelled. `HTTPClientConfiguration.maxResponseFileBytes` caps its size.
    case file(path: String)
}

/// A complete HTTP response of any status.
public struct HTTPResponse: Sendable {
    /// The status code of the final response, e.g. 200 or 404.
    public var status: Int
    /// The final response's header fields (not those of 1xx or redirect responses before it).
    public var headers: HTTPHeaders
    /// The body, for a `.memory` sink; empty for a `.file` sink.
    public var body: [UInt8]
    /// The file holding the body, for a `.file` sink.
    public var bodyFile: String?
    /// Body bytes received, as delivered (no content decoding is requested).
    public var bytesReceived: Int64
    /// For a 3xx answer, the absolute URL its `Location` points to, resolved by libcurl.
    /// Redirects are not followed by default: a caller checks this URL before requesting it.
    public var redirectURL: String?

    /// A response value; the client builds these, tests may too.
    public init(
        status: Int,
        headers: HTTPHeaders,
        body: [UInt8] = [],
        bodyFile: String? = nil,
        bytesReceived: Int64,
        redirectURL: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bytesReceived = bytesReceived
        self.redirectURL = redirectURL
    }

    /// The first value of header `name`, ignoring case.
    public func header(_ name: String) -> String? { headers[name] }

    /// The `Location` header exactly as sent (possibly relative); see `redirectURL`.
    public var location: String? { headers["Location"] }

    /// The in-memory body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
