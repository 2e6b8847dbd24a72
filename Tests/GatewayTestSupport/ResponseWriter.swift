import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes the answer to one request, well-formed or deliberately broken. Every answer carries
/// `Connection: close`; the server closes the connection after the handler returns.
public final class ResponseWriter {
    private let connection: LoopbackConnection
    private var started = false
    private var chunked = false
    private var finished = false

    init(connection: LoopbackConnection) { self.connection = connection }

    /// A complete answer with a `Content-Length`.
    public func respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        try startBody(status: status, headers: headers, contentLength: Int64(body.count))
        try write(body)
        finished = true
    }

    /// A complete text answer (UTF-8), e.g. JSON; add a `Content-Type` header to label it.
    public func respond(status: Int, headers: [(String, String)] = [], text: String) throws {
        try respond(status: status, headers: headers, body: Array(text.utf8))
    }

    /// Sends the status line and headers of a streamed answer: with a length, or chunked when
    /// `contentLength` is nil. Follow with `write` calls; `finish()` ends a chunked body. Sending
    /// fewer bytes than announced and returning (or calling `close()`) makes a truncated answer.
    public func startBody(status: Int, headers: [(String, String)] = [], contentLength: Int64?) throws {
        precondition(!started, "the response was already started")
        started = true
        chunked = contentLength == nil
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += contentLength.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        try connection.send(Array((head + "\r\n").utf8))
    }

    /// Sends body bytes (framed as one chunk when chunked). Throws once the client has gone.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Sends body bytes from a buffer, without copying them.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if chunked { try connection.send(Array((String(bytes.count, radix: 16) + "\r\n").utf8)) }
        try connection.send(bytes)
        if chunked { try connection.send([13, 10]) }
    }

    /// Ends a chunked body; nothing to do for a body with a length.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        if chunked { try connection.send(Array("0\r\n\r\n".utf8)) }
    }

    /// Closes the connection now with a FIN, whatever was sent so far.
    public func close() { connection.close(reset: false) }

    /// Aborts the connection with a TCP RST (SO_LINGER 0, then close).
    public func reset() { connection.close(reset: true) }

    /// Blocks without answering until the client disconnects or the server stops: a hung peer.
    public func hang() { connection.discardUntilClosed(limit: nil) }

    /// What the server does once the handler returns: a handler that never answered gets a 500,
    /// a chunked body gets its terminator.
    func complete() throws {
        guard !connection.isClosed else { return }
        if !started { return try respond(status: 500, text: "the test handler did not answer") }
        try finish()
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
