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
