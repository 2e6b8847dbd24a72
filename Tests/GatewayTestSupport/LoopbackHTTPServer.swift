import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for tests of code that talks HTTP
/// over real sockets (the libcurl client, converter adapters against fake Gotenberg or gateway
/// peers). Each connection gets its own thread and carries one request: every answer says
/// `Connection: close`. The handler runs on that thread and may block, sleep, stream, hang or
/// drop the connection, which is the point: tests reproduce slow, stalled and broken peers.
///
///     let server = try LoopbackHTTPServer { request, response in
///         let bytes = try request.discardBody()
///         try response.respond(status: 200, text: "got \(bytes)")
///     }
///     defer { server.stop() }
public final class LoopbackHTTPServer: Sendable {
    /// Answers one request. Throwing (a write to a client that went away, say) just closes the connection.
    public typealias Handler = @Sendable (ReceivedRequest, ResponseWriter) throws -> Void

    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let shared: LoopbackServerState

    /// Binds 127.0.0.1 on a free port and starts accepting connections.
    public init(handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackHTTPError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 256) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw LoopbackHTTPError("bind/listen on 127.0.0.1: \(reason)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        shared = LoopbackServerState(listenFD: fd, handler: handler)
        let shared = self.shared
        let acceptor = Thread { shared.acceptLoop() }
        acceptor.name = "loopback-http-accept"
        acceptor.start()
    }

    deinit { stop() }

    /// `baseURL` + `path` (which should start with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Stops accepting, interrupts every open connection (blocked reads and writes fail, `hang()`
    /// returns) and waits up to five seconds for handlers to return. Safe to call twice.
    public func stop() { shared.stop() }
}

/// A failure inside the loopback server or in a request it read.
public struct LoopbackHTTPError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}

/// The server's state shared with its threads; the server object itself is not captured so that
/// dropping it runs `deinit`, which stops everything.
final class LoopbackServerState: Sendable {
    private struct State {
        var stopped = false
        var acceptorRunning = true
        var connections: Set<Int32> = []
        var handlersRunning = 0
    }

    let listenFD: Int32
    let handler: LoopbackHTTPServer.Handler
    private let state = Mutex(State())

    init(listenFD: Int32, handler: @escaping LoopbackHTTPServer.Handler) {
        self.listenFD = listenFD
        self.handler = handler
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func acceptLoop() {
        defer { state.withLock { $0.acceptorRunning = false } }
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // shutdown() by stop(), or the socket is broken.
            }
            // accept4 is not visible without _GNU_SOURCE; the window before this is harmless in tests.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                state.handlersRunning += 1
                return true
            }
            guard admitted else {
                Glibc.close(fd)
                return
            }
            let worker = Thread { [self] in serve(LoopbackConnection(fd: fd, server: self)) }
            worker.name = "loopback-http-connection"
            worker.start()
        }
    }

    private func serve(_ connection: LoopbackConnection) {
        defer {
            connection.close(reset: false)
            state.withLock { $0.handlersRunning -= 1 }
        }
        do {
            guard let request = try ReceivedRequest(connection: connection) else { return }
            let writer = ResponseWriter(connection: connection)
            try handler(request, writer)
            try writer.complete()
            connection.closeGracefully()
        } catch {
            // The client went away or sent garbage: there is nobody left to tell.
        }
    }

    /// Forgets `fd` before it is closed, so `stop()` never shuts down a reused descriptor number.
    func release(_ fd: Int32) {
        state.withLock { _ = $0.connections.remove(fd) }
    }

    func stop() {
        let alreadyStopped = state.withLock { state in
            defer { state.stopped = true }
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
            return state.stopped
        }
        guard !alreadyStopped else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))  // wakes accept4 with EINVAL
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, state.withLock({ $0.acceptorRunning || $0.handlersRunning > 0 }) { usleep(2_000) }
        Glibc.close(listenFD)
    }
}

/// One accepted socket with a small read-ahead buffer. Confined to its connection thread.
final class LoopbackConnection {
    let fd: Int32
    let server: LoopbackServerState
    /// Received bytes not consumed yet.
    var pending: [UInt8] = []
    private(set) var isClosed = false

    init(fd: Int32, server: LoopbackServerState) {
        self.fd = fd
        self.server = server
    }

    /// Receives more bytes into `pending`; false at end of stream.
    func fill() throws -> Bool {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw LoopbackHTTPError("recv: \(String(cString: strerror(errno)))") }
            pending.append(contentsOf: scratch[0..<count])
            return count > 0
        }
    }

    /// Passes exactly `count` bytes to `consume`, in pieces; throws if the stream ends first.
    func read(exactly count: Int64, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        var remaining = count
        while remaining > 0 {
            if pending.isEmpty, try !fill() { throw LoopbackHTTPError("the client closed with \(remaining) body bytes missing") }
            let take = Int(min(Int64(pending.count), remaining))
            try pending.withUnsafeBytes { try consume(UnsafeRawBufferPointer(rebasing: $0[0..<take])) }
            pending.removeFirst(take)
            remaining -= Int64(take)
        }
    }

    /// One CRLF-terminated line, without its CRLF.
    func readLine(limit: Int = 16 * 1024) throws -> String {
        while true {
            if let end = pending.firstIndex(of: 10) {
                var line = Array(pending[0..<end])
                pending.removeFirst(end + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard pending.count < limit else { throw LoopbackHTTPError("line longer than \(limit) bytes") }
            guard try fill() else { throw LoopbackHTTPError("the client closed in the middle of a line") }
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            guard !isClosed else { throw LoopbackHTTPError("the connection is closed") }
            // MSG_NOSIGNAL: a vanished client must fail this call, not SIGPIPE the test process.
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 { throw LoopbackHTTPError("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    func send(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try send($0) } }

    /// Sends FIN, reads whatever the client still sends until it closes (closing with unread
    /// input would turn into a reset and could destroy the answer in flight), then closes.
    func closeGracefully() {
        guard !isClosed else { return }
        shutdown(fd, Int32(SHUT_WR))
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline, !server.isStopped {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { break }
            if poller.revents != 0 {
                pending.removeAll(keepingCapacity: true)
                if (try? fill()) != true { break }
            }
        }
        close(reset: false)
    }

    /// Closes now; with `reset`, SO_LINGER 0 makes the kernel send RST instead of FIN.
    func close(reset: Bool) {
        guard !isClosed else { return }
        isClosed = true
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        server.release(fd)
        Glibc.close(fd)
    }
}

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
        let requestLine: String
        do {
            requestLine = try connection.readLine()
        } catch {
            if connection.pending.isEmpty { return nil }
            throw error
        }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { throw LoopbackHTTPError("bad request line: \(requestLine)") }
        method = String(parts[0])
        target = String(parts[1])
        var fields: [(name: String, value: String)] = []
        while true {
            let line = try connection.readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":"), fields.count < 200 else { throw LoopbackHTTPError("bad header line: \(line)") }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        headers = fields
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
        if isChunked {
            var total: Int64 = 0
            while true {
                let sizeLine = try connection.readLine()
                guard let size = Int64(sizeLine.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                    throw LoopbackHTTPError("bad chunk size line: \(sizeLine)")
                }
                if size == 0 {
                    while try !connection.readLine().isEmpty {}  // trailer fields, then the final CRLF
                    return total
                }
                try connection.read(exactly: size, consume)
                total += size
                guard try connection.readLine().isEmpty else { throw LoopbackHTTPError("chunk not followed by CRLF") }
            }
        }
        let length = contentLength ?? 0
        try connection.read(exactly: length, consume)
        return length
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
    public func hang() {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while !connection.isClosed, !connection.server.isStopped {
            var poller = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { return }
            guard poller.revents != 0 else { continue }
            let count = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }  // the client closed (or reset): stop hanging.
        }
    }

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
