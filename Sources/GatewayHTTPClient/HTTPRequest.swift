/// One outbound HTTP request. Bodies are described, not loaded: a file body is streamed from
/// disk while it is sent, so a request never holds a whole document in memory.
public struct HTTPRequest: Sendable {
    /// The method token, e.g. `GET`, `POST`, `PUT`, `DELETE`.
    public var method: String
    /// An absolute `http` or `https` URL.
    public var url: String
    /// Header fields to send; `Content-Length` and multipart `Content-Type` are computed.
    public var headers: HTTPHeaders
    /// What to send after the headers.
    public var body: HTTPRequestBody
    /// libcurl `CURLOPT_RESOLVE` entries, `host:port:address`: connect there without asking DNS
    /// (the SSRF layer pins the address it checked).
    public var resolve: [String]

    /// A request; with no body a `GET` by default.
    public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: HTTPRequestBody = .none, resolve: [String] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.resolve = resolve
    }
}

/// What a request sends after its headers.
public enum HTTPRequestBody: Sendable {
    /// No body (`POST`, `PUT` and `PATCH` still send `Content-Length: 0`).
    case none
    /// Small in-memory bytes such as a JSON document; `Content-Type` defaults to `application/octet-stream`.
    case bytes([UInt8])
    /// The contents of a regular file, read while sending, with its size as `Content-Length`.
    /// `PUT` sends it as an upload; other methods as a `POST`-style body under that method.
    case file(path: String)
    /// `length` bytes of a regular file from `offset`, read while sending: one part of a
    /// multipart upload, so a large file goes up in pieces without being split on disk.
    case fileRange(path: String, offset: Int64, length: Int64)
    /// A `multipart/form-data` form; file parts are streamed from disk by libcurl.
    case multipart([MultipartPart])

    /// A UTF-8 text body.
    public static func text(_ string: String) -> HTTPRequestBody { .bytes(Array(string.utf8)) }
}
