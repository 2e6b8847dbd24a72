import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one request to a line worker came to.
package enum LineReply: Sendable, Equatable {
    /// The answer line, without its newline.
    case line([UInt8])
    /// The deadline passed first. The worker is left as it is: its owner decides.
    case timedOut
    /// The worker's end closed, it wrote an over-long line, or its leader exited.
    case closed
    /// The request could not be written: the worker was gone before it saw it.
    case notSent
}

/// A child process in a process group of its own that answers one line for each line it is
/// sent, on a socket that is its stdin and stdout (a socket rather than pipes, so writing to a
/// dead worker fails with EPIPE instead of raising SIGPIPE): the converters' warm workers and
/// the PDF inspector's workers.
///
/// The socket is a SwiftNIO channel, so a request awaits its answer without a thread; the group's
/// leader is watched by `ExitMonitor`, because helpers the worker forked may hold the socket open
/// after it died. One request at a time: its owner serialises them.
package final class LineWorker: Sendable {
    package let group: ProcessGroup
    private let channel: any Channel
    private let handler: LineHandler
    private let exitWatch: ExitMonitor.Watch

    private init(group: ProcessGroup, channel: any Channel, handler: LineHandler) {
        self.group = group
        self.channel = channel
        self.handler = handler
        exitWatch = ExitMonitor.shared.watch(group.id) { [channel, handler] exited in
            guard exited else { return }
            channel.eventLoop.execute { handler.leaderExited() }
        }
    }

    deinit {
        ExitMonitor.shared.cancel(exitWatch)
        channel.close(promise: nil)
    }

    /// Starts the child that `spec` describes for `socket` (to be its stdin and stdout) as the
    /// leader of a new process group. Lines longer than `maxLineBytes` close the channel.
    package static func start(
        maxLineBytes: Int = 1 << 20,
        _ spec: (_ socket: Int32) -> ChildSpec
    ) async throws(SpawnFailure) -> LineWorker {
        guard let (ours, theirs) = socketPair() else {
            throw SpawnFailure(message: "no socket for the worker: \(String(cString: strerror(errno)))", code: errno)
        }
        let group: ProcessGroup
        do throws(SpawnFailure) {
            defer { close(theirs) }
            group = try ProcessGroup.start(spec(theirs))
        } catch {
            close(ours)
            throw error
        }
        let handler = LineHandler(maxLineBytes: maxLineBytes)
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture(withResultOf: { try channel.pipeline.syncOperations.addHandler(handler) })
                }
                .withConnectedSocket(ours)
                .get()
            return LineWorker(group: group, channel: channel, handler: handler)
        } catch {
            // NIO closes the descriptor once it has made a channel of it, not before.
            if fcntl(ours, F_GETFD) >= 0 { close(ours) }
            await group.killAndReap()
            throw SpawnFailure(message: "the worker's socket could not be watched: \(error)", code: EIO)
        }
    }

    /// Sends `line` (newline included) and waits until `deadline` for the answer line.
    package func exchange(_ line: [UInt8], until deadline: ContinuousClock.Instant) async -> LineReply {
        await request(line, until: deadline)
    }

    /// Waits until `deadline` for a line the worker sends unasked (a "ready" line at start).
    package func readLine(until deadline: ContinuousClock.Instant) async -> LineReply {
        await request(nil, until: deadline)
    }

    /// Sends `line` without waiting for an answer; false when it could not be written.
    package func send(_ line: [UInt8]) async -> Bool {
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: line)).get()
            return true
        } catch {
            return false
        }
    }

    /// Whether an idle worker looks able to serve: its leader runs, its end is open, and it has
    /// said nothing unasked (which would be a broken worker's output or a hang-up).
    package var isIdleHealthy: Bool {
        handler.status.withLock { !$0.closed && !$0.unsolicited } && group.isRunning
    }

    /// Kills the group, reaps the leader and closes our end; returns the leader's wait status.
    @discardableResult
    package func terminate() async -> Int32 {
        let status = await group.killAndReap()
        try? await channel.close().get()
        return status
    }

    /// Asks the worker to end, with `line` (a "quit" request) or else by closing its input, and
    /// gives the leader `grace` to exit before the group is killed; returns its wait status.
    @discardableResult
    package func end(saying line: [UInt8]?, grace: Duration) async -> Int32 {
        if let line {
            _ = await send(line)
        } else {
            try? await channel.close().get()
        }
        _ = await group.exited(by: .now + grace)
        return await terminate()
    }

    private func request(_ line: [UInt8]?, until deadline: ContinuousClock.Instant) async -> LineReply {
        let promise = channel.eventLoop.makePromise(of: LineReply.self)
        let remaining = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = max(remaining, .zero).components
        let timeout = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        channel.eventLoop.execute { [handler] in handler.expect(promise, sending: line, timeout: timeout) }
        return (try? await promise.futureResult.get()) ?? .closed
    }
}

/// The worker's end of the socket, as a channel handler: frames the answer lines and hands each
/// to the request waiting for it.
///
/// `@unchecked Sendable`: everything but `status` is touched only on its channel's event loop
/// (`LineWorker` reaches it through `eventLoop.execute`), and `status` is a `Mutex`.
private final class LineHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Status {
        var closed = false
        var unsolicited = false
    }

    /// What `LineWorker.isIdleHealthy` reads from other threads.
    let status = Mutex(Status())
    private let maxLineBytes: Int
    private var context: ChannelHandlerContext?
    private var buffered: [UInt8] = []
    private var pending: EventLoopPromise<LineReply>?
    private var timer: Scheduled<Void>?
    private var inactive = false
    private var leaderGone = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffered += bytes.readBytes(length: bytes.readableBytes) ?? []
        deliver()
    }

    func channelInactive(context: ChannelHandlerContext) {
        inactive = true
        status.withLock { $0.closed = true }
        finish(.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The group's leader exited. An answer it wrote just before may still be on its way from
    /// the socket: the waiting request ends after a moment, not at once.
    func leaderExited() {
        leaderGone = true
        status.withLock { $0.closed = true }
        closeAfterGrace()
    }

    func expect(_ promise: EventLoopPromise<LineReply>, sending line: [UInt8]?, timeout: NIODeadline) {
        guard pending == nil, let context else {
            promise.succeed(line == nil ? .closed : .notSent)
            return
        }
        pending = promise
        deliver()
        guard pending != nil else { return }
        // A request to a worker already known to be gone never reached it.
        if inactive || (leaderGone && line != nil) {
            finish(line == nil ? .closed : .notSent)
            return
        }
        timer = context.eventLoop.scheduleTask(deadline: timeout) { [self] in finish(.timedOut) }
        if leaderGone { closeAfterGrace() }
        if let line {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: line))).whenFailure { [self] _ in finish(.notSent) }
        }
    }

    private func closeAfterGrace() {
        guard pending != nil, let context else { return }
        context.eventLoop.scheduleTask(in: .milliseconds(250)) { [self] in finish(.closed) }
    }

    /// Hands a complete line to the waiting request; bytes nobody asked for mark the worker
    /// unhealthy, and a line past the cap closes it.
    private func deliver() {
        defer {
            let leftover = !buffered.isEmpty
            status.withLock { $0.unsolicited = leftover }
        }
        guard pending != nil else { return }
        if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(buffered[..<newline])
            buffered.removeSubrange(...newline)
            finish(.line(line))
        } else if buffered.count > maxLineBytes {
            finish(.closed)
            context?.close(promise: nil)
        }
    }

    private func finish(_ reply: LineReply) {
        guard let promise = pending else { return }
        pending = nil
        timer?.cancel()
        timer = nil
        promise.succeed(reply)
    }
}
