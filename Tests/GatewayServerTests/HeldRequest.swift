import Foundation

/// One request over a raw socket, written in steps: the head and the start of the body now, the
/// rest later or never, so a test can act while the server is still reading the body (libcurl
/// would send it all at once).
final class HeldRequest: @unchecked Sendable {
    /// An HTTP/1.1 answer: status, lower-cased header names, body.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    // Used from one test at a time, never concurrently: the test awaits each step.
    private let fd: Int32

    /// Connects to 127.0.0.1:`port` and writes `head` (request line and headers, without the
    /// blank line) and then `body`, which may be only the start of what `Content-Length` promises.
    init(port: Int, head: String, body: [UInt8] = []) throws {
        fd = try connectToLoopback(port: port)
        try send(Array((head + "\r\n\r\n").utf8) + body)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPIPE) }
            sent += written
        }
    }

    /// Reads one answer (a `Content-Length` body), or nil when none is complete within `timeout`.
    func answer(timeout: Double) -> Answer? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let answer = Self.parse(received) { return answer }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { break }
            received += buffer[0..<got]
        }
        return Self.parse(received)
    }

    private static func parse(_ bytes: [UInt8]) -> Answer? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = Array(bytes[(end + separator.count)...])
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        guard body.count >= length else { return nil }
        return Answer(status: status, headers: headers, body: Array(body.prefix(length)))
    }
}

/// A blocking TCP socket connected to 127.0.0.1:`port`; the caller closes it.
func connectToLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        close(fd)
        throw error
    }
    return fd
}
