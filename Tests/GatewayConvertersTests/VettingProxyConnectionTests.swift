import Foundation
import GatewayTestSupport
import GatewayURLSecurity
import Glibc
import Testing

@testable import GatewaySandbox

#if canImport(Glibc)
#endif

/// The proxy's connections on swift-nio, driven over raw loopback sockets: many tunnels at once
/// on a few threads, request bodies forwarded, and what is no proxy request answered 400.
@Suite("Vetting proxy connections")
struct VettingProxyConnectionTests {
    /// A hundred tunnels open at once, each carrying bytes both ways, cost the proxy no thread
    /// each (the hand-written proxy ran one per connection). The origin never runs a thread
    /// either: it is a listening socket whose queue this test accepts from once all are open.
    @Test func aHundredTunnelsAtOnceShareTheEventLoops() async throws {
        let count = 100
        // On a thread of its own: the sockets here block.
        let (added, notes) = try await onThread {
            let origin = try RawSocket.listen()
            defer { origin.close() }
            let urlGuard = URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(origin.port)"]))
            let proxy = try VettingProxy(page: "http://127.0.0.1:\(origin.port)/", urlGuard: urlGuard)
            let listener = try ProxyListener(.loopback)
            listener.route(to: proxy)
            defer {
                listener.stop()
                proxy.stop()
            }
            let before = try Self.threads()
            var clients: [RawSocket] = []
            defer {
                for client in clients { client.close() }
            }
            for _ in 0..<count {
                let client = try RawSocket.connect(port: listener.port)
                try client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
                clients.append(client)
            }
            for client in clients {
                let answer = try client.readHead()
                guard answer == "HTTP/1.1 200 Connection Established\r\n\r\n" else { throw RawSocket.Failure("CONNECT answered \(answer)") }
            }
            let added = try Self.threads() - before
            for (index, client) in clients.enumerated() { try client.send("tunnel \(index)\n") }
            for _ in 0..<count {
                let accepted = try origin.accept()
                defer { accepted.close() }
                let line = try accepted.readLine()
                try accepted.send(line.replacingOccurrences(of: "tunnel", with: "back") + "\n")
            }
            for (index, client) in clients.enumerated() {
                let line = try client.readLine()
                guard line == "back \(index)" else { throw RawSocket.Failure("tunnel \(index) got back '\(line)'") }
            }
            return (added, proxy.notes)
        }
        #expect(added < 20, "\(count) open tunnels took \(added) threads")
        #expect(notes.isEmpty, "\(notes)")
    }

    /// Each address a name was vetted at is tried in turn, IPv6 included; when none answers, a
    /// CONNECT gets a 502 and the proxy notes every address's reason.
    @Test func everyVettedAddressIsTriedInTurn() async throws {
        let (answers, notes, port) = try await onThread {
            let origin = try RawSocket.listen()  // on 127.0.0.1 only: 127.0.0.2 and ::1 refuse
            defer { origin.close() }
            let port = origin.port
            let loopbackV6 = IPAddress.v6(Array(repeating: 0, count: 15) + [1])
            let names: [String: [IPAddress]] = [
                "multi.test": [.v4(0x7F00_0002), loopbackV6, .v4(0x7F00_0001)], "dead.test": [.v4(0x7F00_0002), loopbackV6],
            ]
            let urlGuard = URLGuard(check: URLCheck(allowList: ["multi.test:\(port)", "dead.test:\(port)"])) { names[$0] ?? [] }
            let proxy = try VettingProxy(page: "http://multi.test:\(port)/", urlGuard: urlGuard)
            let listener = try ProxyListener(.loopback)
            listener.route(to: proxy)
            defer {
                listener.stop()
                proxy.stop()
            }
            let client = try RawSocket.connect(port: listener.port)
            defer { client.close() }
            try client.send("CONNECT multi.test:\(port) HTTP/1.1\r\n\r\n")
            let established = try client.readHead()
            try client.send("through\n")
            let accepted = try origin.accept()
            defer { accepted.close() }
            let arrived = try accepted.readLine()
            let dead = try RawSocket.connect(port: listener.port)
            defer { dead.close() }
            try dead.send("CONNECT dead.test:\(port) HTTP/1.1\r\n\r\n")
            return ([established, arrived, try dead.readHead()], proxy.notes, port)
        }
        #expect(answers[0] == "HTTP/1.1 200 Connection Established\r\n\r\n" && answers[1] == "through", "\(answers)")
        #expect(answers[2].hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"), "\(answers[2])")
        #expect(notes.count == 1, "\(notes)")
        guard case .unreachable(let reason, let navigation) = notes.first else { return }
        #expect(navigation == nil)
        #expect(reason.hasPrefix("could not connect to dead.test:\(port) (127.0.0.2: Connection refused; [0:0:0:0:0:0:0:1]: "), "\(reason)")
    }

    /// `stop()` cuts the job's open tunnels at both ends.
    @Test func stopCutsOpenTunnels() async throws {
        let (browserGot, originGot) = try await onThread {
            let origin = try RawSocket.listen()
            defer { origin.close() }
            let urlGuard = URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(origin.port)"]))
            let proxy = try VettingProxy(page: "http://127.0.0.1:\(origin.port)/", urlGuard: urlGuard)
            let listener = try ProxyListener(.loopback)
            defer { listener.stop() }
            listener.route(to: proxy)
            let client = try RawSocket.connect(port: listener.port)
            defer { client.close() }
            try client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\n")
            guard try client.readHead().hasPrefix("HTTP/1.1 200") else { throw RawSocket.Failure("no tunnel") }
            let accepted = try origin.accept()
            defer { accepted.close() }
            proxy.stop()
            return (try client.readToEnd(), try accepted.readToEnd())
        }
        #expect(browserGot.isEmpty && originGot.isEmpty, "\(browserGot) | \(originGot)")
    }

    /// A plain-HTTP request's body reaches the origin as the browser framed it: with a length,
    /// or chunked.
    @Test(arguments: [[String](), ["-H", "Transfer-Encoding: chunked"]])
    func aRequestBodyIsForwarded(framing: [String]) async throws {
        let site = try LoopbackHTTPServer { request, response in
            let body = try request.readBodyText()
            try response.respond(status: 200, headers: [("Content-Type", "text/plain")], text: "got \(body)")
        }
        defer { site.stop() }
        let urlGuard = URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(site.port)"]))
        let proxy = try VettingProxy(page: site.url("/"), urlGuard: urlGuard)
        let listener = try ProxyListener(.loopback)
        listener.route(to: proxy)
        defer {
            listener.stop()
            proxy.stop()
        }
        let result = try await run(
            "curl",
            ["-s", "--max-time", "10", "-x", listener.proxyServer, "--data-binary", "name=value&more=1"] + framing + [site.url("/form")]
        )
        #expect(result.stdout == "got name=value&more=1", "\(result)")
    }

    /// What the proxy cannot take for a proxy request gets a 400 and the connection closed:
    /// bytes that are not HTTP, a path without a host, https in the clear, a CONNECT without a port.
    @Test(arguments: [
        "garbage\r\n\r\n", "GET /local HTTP/1.1\r\nHost: x.test\r\n\r\n", "GET https://x.test/ HTTP/1.1\r\n\r\n",
        "CONNECT x.test HTTP/1.1\r\n\r\n",
    ])
    func whatIsNoProxyRequestIsAnswered400(request: String) async throws {
        let answer = try await onThread {
            let urlGuard = URLGuard(check: URLCheck(allowList: ["127.0.0.1:1"]))
            let proxy = try VettingProxy(page: "http://127.0.0.1:1/", urlGuard: urlGuard)
            let listener = try ProxyListener(.loopback)
            listener.route(to: proxy)
            defer {
                listener.stop()
                proxy.stop()
            }
            let client = try RawSocket.connect(port: listener.port)
            defer { client.close() }
            try client.send(request)
            return try client.readHead()
        }
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
    }

    /// A connection that arrives while no job is routed is closed unanswered.
    @Test func aConnectionBetweenJobsIsClosedUnanswered() async throws {
        let answer = try await onThread {
            let listener = try ProxyListener(.loopback)
            defer { listener.stop() }
            let client = try RawSocket.connect(port: listener.port)
            defer { client.close() }
            return try client.readToEnd()
        }
        #expect(answer.isEmpty, "\(answer)")
    }

    static func threads() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }
}

/// A blocking TCP socket on 127.0.0.1 with a receive timeout, for driving the proxy byte by byte.
final class RawSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let fd: Int32
    /// The local port (of a listening socket).
    let port: Int
    private var buffered: [UInt8] = []

    private init(fd: Int32, port: Int = 0) {
        self.fd = fd
        self.port = port
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A listening socket on a free port that nobody accepts from until `accept()`.
    static func listen() throws -> RawSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && Glibc.listen(fd, 512) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw Failure("listen: \(String(cString: strerror(errno)))") }
        return RawSocket(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    static func connect(port: Int) throws -> RawSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard fd >= 0, connected else { throw Failure("connect: \(String(cString: strerror(errno)))") }
        return RawSocket(fd: fd)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    func accept() throws -> RawSocket {
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { throw Failure("accept: \(String(cString: strerror(errno)))") }
        return RawSocket(fd: client)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads until `terminator`, which it includes; what follows stays buffered.
    private func read(through terminator: [UInt8]) throws -> String {
        while true {
            if let range = buffered.firstRange(of: terminator) {
                defer { buffered.removeFirst(range.upperBound) }
                return String(decoding: buffered[..<range.upperBound], as: UTF8.self)
            }
            guard try fill() else { throw Failure("closed after '\(String(decoding: buffered, as: UTF8.self))'") }
        }
    }

    /// A response head, up to and including its blank line.
    func readHead() throws -> String { try read(through: [13, 10, 13, 10]) }

    /// One line, without its newline.
    func readLine() throws -> String { String(try read(through: [10]).dropLast()) }

    /// Everything until the peer closes.
    func readToEnd() throws -> String {
        while try fill() {}
        return String(decoding: buffered, as: UTF8.self)
    }

    /// False at the end of the stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw Failure("recv: \(String(cString: strerror(errno)))") }
        buffered += chunk[0..<count]
        return count > 0
    }

    func close() { Glibc.close(fd) }
}
