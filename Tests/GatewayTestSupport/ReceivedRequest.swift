import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// A request as the server read it: the head is parsed, the body is still on the socket and is
/// read on demand (once) by one of the `readBody` methods, so tests can stream huge uploads.
public final class ReceivedRequest {
    /// The method token, e.g. `POST`.
    public let method: String
    /// The request target as sent: a path and query, or an absolute URL when sent to a proxy.
    public let target: String
    /// `target` without its query string.
    public var path: String { String(target.prefix { $0 != "?" }) }
    /// Header fields in order, names as sent.
    public let headers: [(name: String, value: String)]
    private let connection: LoopbackConnection
    private var bodyRead = false

    /// Reads the request head; nil when the client closed without sending one.
    init?(connection: LoopbackConnection) throws {
        self.connection = connection
        guard case .head(let head) = connection.next() else { return nil }
        method = head.method.rawValue
        target = head.uri
        headers = head.headers.map { ($0.name, $0.value) }
    }

    /// The first value of header `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The declared `Content-Length`, if any.
    public var contentLength: Int64? { header("Content-Length").flatMap { Int64($0) } }

    /// Whether the body comes in `Transfer-Encoding: chunked` pieces (libcurl's choice when it
    /// does not know the size in advance).
    public var isChunked: Bool { header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false }

    /// Streams the body through `consume` piece by piece and returns its length. Answers an
    /// `Expect: 100-continue` first. A request without a length or chunking has an empty body.
    @discardableResult
    public func readBody(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        guard !bodyRead else { throw LoopbackHTTPError("the body was already read") }
        bodyRead = true
        if header("Expect")?.lowercased() == "100-continue" { try connection.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
        var total: Int64 = 0
        while true {
            switch connection.next() {
            case .body(let piece):
                try piece.withUnsafeReadableBytes { try consume($0) }
                total += Int64(piece.readableBytes)
            case .end:
                return total
            case .head, nil:
                throw LoopbackHTTPError("the client closed with the body unfinished after \(total) bytes")
            }
        }
    }

    /// The whole body in memory; throws past `limit` bytes.
    public func readBody(limit: Int = 64 << 20) throws -> [UInt8] {
        var body: [UInt8] = []
        try readBody { piece in
            guard body.count + piece.count <= limit else { throw LoopbackHTTPError("request body over \(limit) bytes") }
            body.append(contentsOf: piece)
        }
        return body
    }

    /// The body decoded as UTF-8.
    public func readBodyText(limit: Int = 64 << 20) throws -> String {
        String(decoding: try readBody(limit: limit), as: UTF8.self)
    }

    /// Streams the body into a new file at `path` and returns its length.
    @discardableResult
    public func readBody(toFile path: String) throws -> Int64 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LoopbackHTTPError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        return try readBody { piece in
            var offset = 0
            while offset < piece.count {
                let written = write(fd, piece.baseAddress! + offset, piece.count - offset)
                guard written > 0 else { throw LoopbackHTTPError("write \(path): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    /// Reads and drops the body, returning its length: for uploads too big to keep.
    @discardableResult
    public func discardBody() throws -> Int64 { try readBody { _ in } }

    /// Reads a `multipart/form-data` body into memory and splits it into its parts.
    public func readMultipartForm(limit: Int = 64 << 20) throws -> [ReceivedFormPart] {
        guard let type = header("Content-Type"), type.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.parameter("boundary", in: type)
        else { throw LoopbackHTTPError("not a multipart/form-data request: \(header("Content-Type") ?? "no Content-Type")") }
        return try ReceivedFormPart.split(try readBody(limit: limit), boundary: boundary)
    }

    /// The value of `; name=value` (quotes removed) in a header value.
    static func parameter(_ name: String, in value: String) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == name { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }
}

/// One part of a `multipart/form-data` body.
public struct ReceivedFormPart: Sendable {
    /// The form field name.
    public var name: String
    /// The file name, for file parts.
    public var filename: String?
    /// The part's `Content-Type`, if it declared one.
    public var contentType: String?
    /// The part's content.
    public var body: [UInt8]
    /// `body` decoded as UTF-8.
    public var text: String { String(decoding: body, as: UTF8.self) }

    static func split(_ body: [UInt8], boundary: String) throws -> [ReceivedFormPart] {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n\r\n".utf8)
        // Delimiters sit at the start or right after a CRLF; prefixing one CRLF makes both alike.
        let data = [13, 10] + body
        let marker = [13, 10] + delimiter
        var parts: [ReceivedFormPart] = []
        guard var cursor = data.firstRange(of: marker)?.upperBound else { throw LoopbackHTTPError("no multipart boundary found") }
        while !data[cursor...].starts(with: [45, 45]) {  // "--" closes the form
            guard let next = data[cursor...].firstRange(of: marker), let headEnd = data[cursor..<next.lowerBound].firstRange(of: separator) else {
                throw LoopbackHTTPError("unterminated multipart part")
            }
            let head = String(decoding: data[cursor..<headEnd.lowerBound], as: UTF8.self)
            var part = ReceivedFormPart(name: "", filename: nil, contentType: nil, body: Array(data[headEnd.upperBound..<next.lowerBound]))
            for line in head.split(separator: "\r\n") {
                let field = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard field.count == 2 else { continue }
                if field[0].lowercased() == "content-disposition" {
                    part.name = ReceivedRequest.parameter("name", in: field[1]) ?? ""
                    part.filename = ReceivedRequest.parameter("filename", in: field[1])
                } else if field[0].lowercased() == "content-type" {
                    part.contentType = field[1]
                }
            }
            parts.append(part)
            cursor = next.upperBound
        }
        return parts
    }
}
