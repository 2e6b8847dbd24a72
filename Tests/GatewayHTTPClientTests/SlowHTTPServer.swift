import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that answers every request, after `delay`, with its target as
/// the body. Unlike `LoopbackHTTPServer` it serves all connections from one event-loop thread, so
/// a thousand clients add no thread to the process and a thread count measures the client alone.
final class SlowHTTPServer: Sendable {
    /// The TCP port on 127.0.0.1.
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let received: Counter
    private let accepted: Counter
    private let held: HeldRequests

    /// Binds a free port; `stop()` must be awaited before the server is dropped.
    init(delay: TimeAmount) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let received = Counter()
        let accepted = Counter()
        let held = HeldRequests()
        do {
            channel = try await ServerBootstrap(group: group)
                // A burst of a thousand connects must not overflow the accept queue.
                .serverChannelOption(.backlog, value: 2_048)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    accepted.value.add(1, ordering: .relaxed)
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(DelayedEcho(delay: delay, received: received, held: held))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.group = group
        self.received = received
        self.accepted = accepted
        self.held = held
        port = channel.localAddress?.port ?? 0
    }

    /// Requests whose head and body have fully arrived.
    var requestsReceived: Int { received.value.load(ordering: .relaxed) }

    /// The most requests held unanswered at one moment: how many the client had in flight at once.
    var mostHeldAtOnce: Int { held.most.load(ordering: .relaxed) }

    /// Connections accepted so far.
    var connectionsAccepted: Int { accepted.value.load(ordering: .relaxed) }

    /// `http://127.0.0.1:<port>` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Closes the listener and every connection, and ends the event-loop thread.
    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// Requests waiting for their answer, counted on the one event loop that holds them all.
private final class HeldRequests: Sendable {
    let now = Atomic<Int>(0)
    let most = Atomic<Int>(0)

    func hold() {
        let count = now.add(1, ordering: .relaxed).newValue
        if count > most.load(ordering: .relaxed) { most.store(count, ordering: .relaxed) }
    }

    func release() { now.subtract(1, ordering: .relaxed) }
}

/// Holds each request for `delay` on the event loop's timer, then answers with its target.
private final class DelayedEcho: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let delay: TimeAmount
    private let received: Counter
    private let held: HeldRequests
    private var target = ""

    init(delay: TimeAmount, received: Counter, held: HeldRequests) {
        self.delay = delay
        self.received = received
        self.held = held
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            target = head.uri
        case .body:
            break
        case .end:
            received.value.add(1, ordering: .relaxed)
            held.hold()
            let body = target
            context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                self.held.release()
                let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": String(body.utf8.count)])
                context.write(self.wrapOutboundOut(.head(head)), promise: nil)
                context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
