import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One accepted connection, between SwiftNIO (which owns the socket and parses the request with
/// its `HTTPRequestDecoder`) and the test's handler, which runs on a thread of its own and may
/// block. The handler pulls request parts one read at a time (the channel does not read ahead
/// of it, so a huge upload streams rather than piling up) and its writes wait until they are
/// on the socket, so a handler that writes to a vanished client fails there.
final class LoopbackConnection: @unchecked Sendable {
    /// What the event loop hands the handler's thread.
    enum Inbound {
        case head(HTTPRequestHead)
        case body(ByteBuffer)
        case end
    }

    let channel: any Channel
    let server: LoopbackServerState
    /// Guards everything below; the handler's thread waits on it for parts or the end.
    private let condition = NSCondition()
    private var parts: [Inbound] = []
    private var readAsked = false
    private var discarding = false
    private var closedByPeerOrUs = false

    init(channel: any Channel, server: LoopbackServerState) {
        self.channel = channel
        self.server = server
    }

    /// Whether the connection has ended, for either side's reason.
    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closedByPeerOrUs
    }

    /// The next part of the request; nil once the connection has ended.
    func next() -> Inbound? {
        condition.lock()
        defer { condition.unlock() }
        while parts.isEmpty {
            if closedByPeerOrUs { return nil }
            if !readAsked {
                readAsked = true
                channel.read()
            }
            condition.wait()
        }
        return parts.removeFirst()
    }

    /// Sends `bytes` and waits until they are written; throws once the client has gone.
    func send(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isClosed else { throw LoopbackHTTPError("the connection is closed") }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        do {
            try channel.writeAndFlush(buffer).wait()
        } catch {
            throw LoopbackHTTPError("send: \(error)")
        }
    }

    func send(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try send($0) } }

    /// Reads and drops whatever else the client sends and waits until it closes, the server
    /// stops, or `limit` passes: a hung peer's wait, and the drain before a graceful close.
    func discardUntilClosed(limit: Duration?) {
        condition.lock()
        discarding = true
        parts.removeAll()
        condition.unlock()
        channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { [channel] _ in channel.read() }
        let deadline = limit.map { Date().addingTimeInterval($0.inSecondsValue) } ?? .distantFuture
        condition.lock()
        while !closedByPeerOrUs, !server.isStopped, Date() < deadline {
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
        condition.unlock()
    }

    /// Sends FIN, reads whatever the client still sends until it closes (closing with unread
    /// input would turn into a reset and could destroy the answer in flight), then closes.
    func closeGracefully() {
        guard !isClosed else { return }
        try? channel.close(mode: .output).wait()
        discardUntilClosed(limit: .seconds(2))
        close(reset: false)
    }

    /// Closes now; with `reset`, SO_LINGER 0 makes the kernel send RST instead of FIN.
    func close(reset: Bool) {
        if reset, let socket = channel as? any SocketOptionProvider {
            try? socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).wait()
        }
        try? channel.close().wait()
        ended()
    }

    /// From the event loop: a part arrived.
    func received(_ part: Inbound) {
        condition.lock()
        defer { condition.unlock() }
        readAsked = false
        if !discarding { parts.append(part) }
        condition.broadcast()
    }

    /// From either side: the connection is over; wakes a waiting handler.
    func ended() {
        condition.lock()
        defer { condition.unlock() }
        closedByPeerOrUs = true
        condition.broadcast()
    }
}

/// Hands a connection's request parts to its `LoopbackConnection` and starts the test's handler
/// on a thread of its own once the connection is up.
final class LoopbackChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart

    private let server: LoopbackServerState
    private var connection: LoopbackConnection?

    init(server: LoopbackServerState) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        let connection = LoopbackConnection(channel: context.channel, server: server)
        self.connection = connection
        guard server.admit(connection) else {
            context.close(promise: nil)
            return
        }
        let worker = Thread { [server] in server.serve(connection) }
        worker.name = "loopback-http-handler"
        worker.start()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): connection?.received(.head(head))
        case .body(let body): connection?.received(.body(body))
        case .end: connection?.received(.end)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.ended()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Garbage from the client (the decoder's error) or a broken socket: nobody is left to tell.
        context.close(promise: nil)
    }
}

extension Duration {
    fileprivate var inSecondsValue: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
