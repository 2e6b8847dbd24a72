import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for tests of code that talks HTTP
/// over real sockets (the libcurl client, converter adapters against fake Gotenberg or gateway
/// peers). SwiftNIO accepts the connections and parses the requests (`HTTPRequestDecoder`) on
/// the process's shared event loops; each request's handler runs on a thread of its own and may
/// block, sleep, stream, hang or drop the connection, which is the point: tests reproduce slow,
/// stalled and broken peers. A connection carries one request: every answer says
/// `Connection: close`.
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
        let shared = LoopbackServerState(handler: handler)
        let listener: any Channel
        do {
            listener = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // The handler pulls the request as it reads it: nothing is read ahead of it.
                .childChannelOption(.autoRead, value: false)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                        )
                        try channel.pipeline.syncOperations.addHandler(LoopbackChannelHandler(server: shared))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            throw LoopbackHTTPError("bind/listen on 127.0.0.1: \(error)")
        }
        shared.listening(on: listener)
        port = listener.localAddress?.port ?? 0
        self.shared = shared
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

/// The server's state shared with the event loop and the handlers' threads; the server object
/// itself is not captured so that dropping it runs `deinit`, which stops everything.
final class LoopbackServerState: Sendable {
    private struct State {
        var stopped = false
        var listener: (any Channel)?
        var connections: [ObjectIdentifier: LoopbackConnection] = [:]
    }

    let handler: LoopbackHTTPServer.Handler
    private let state = Mutex(State())
    /// Entered by each handler while it runs: `stop()` waits for them.
    private let handlers = DispatchGroup()

    init(handler: @escaping LoopbackHTTPServer.Handler) {
        self.handler = handler
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func listening(on listener: any Channel) {
        state.withLock { $0.listener = listener }
    }

    /// Records a new connection and its handler; false once the server is stopping.
    func admit(_ connection: LoopbackConnection) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.connections[ObjectIdentifier(connection)] = connection
            handlers.enter()
            return true
        }
    }

    /// The handler's thread: reads the request, runs the test's handler, completes the answer.
    func serve(_ connection: LoopbackConnection) {
        defer {
            connection.close(reset: false)
            _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
            handlers.leave()
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

    func stop() {
        let (alreadyStopped, listener, connections) = state.withLock { state in
            defer { state.stopped = true }
            return (state.stopped, state.listener, Array(state.connections.values))
        }
        guard !alreadyStopped else { return }
        for connection in connections { connection.channel.close(promise: nil) }
        // The last owner of a server may let go of it on an event loop (a handler's closure
        // torn down with its channel): there nothing may block, so the closes are only started.
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            listener?.close(promise: nil)
            return
        }
        try? listener?.close().wait()
        _ = handlers.wait(timeout: .now() + 5)
    }
}
