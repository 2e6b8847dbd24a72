import Foundation
import GatewayCore
import GatewayJobModel
import Glibc
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
#endif

/// The address Chromium's proxy setting points at: a listening socket on 127.0.0.1 whose
/// connections go to whichever `VettingProxy` is current. A warm browser keeps one for its whole
/// life and switches it from job to job, so each job's requests are judged by that job's rules;
/// a connection that arrives between jobs is closed unanswered.
///
/// Every listener and every proxy connection runs on swift-nio's shared event loops: no thread
/// of its own per browser, job or connection.
package final class ProxyListener: Sendable {
    /// Where the listening socket comes from.
    package enum Source: Sendable {
        /// Bound here on 127.0.0.1, a free port (a browser running without a sandbox).
        case loopback
        /// Bound on 127.0.0.1:`port` inside a browser's sandbox, by `pdfgate sandbox-exec`,
        /// which sends it over `channel` (ours to close): the only address that sandbox can reach.
        case fromSandbox(channel: Int32, port: Int)
    }

    let port: Int
    /// Shared with the accepting channel's initializer, which must not keep the listener alive
    /// (its `deinit` stops everything).
    private let routes = Routes()

    private final class Routes: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var server: (any Channel)?
        /// The socket a sandbox sends its listener over, until it has or `stop()`; -1 after.
        var channel: Int32 = -1
        var current: VettingProxy?
        var stopped = false
    }

    /// Starts accepting at once, or once the sandbox has sent its listener; `stop()` ends it.
    /// Blocks briefly (a bind); call it off the event loops, as a browser's slot does.
    package init(_ source: Source) throws(JobFailure) {
        switch source {
        case .loopback:
            let server: any Channel
            do {
                server = try Self.bootstrap(routes).bind(host: "127.0.0.1", port: 0).wait()
            } catch {
                throw VettingProxy.unavailable("bind 127.0.0.1: \(error)")
            }
            guard let port = server.localAddress?.port else {
                server.close(promise: nil)
                throw VettingProxy.unavailable("127.0.0.1 was bound without a port")
            }
            self.port = port
            routes.state.withLock { $0.server = server }
        case .fromSandbox(let channel, let port):
            self.port = port
            routes.state.withLock { $0.channel = channel }
            let routes = routes
            startThread(named: "pdfgate-proxy") {
                // The browser starts only after the helper sent it, so this wait is short.
                let received = DescriptorPassing.receive(over: channel, timeout: .seconds(60))
                let accepted = routes.state.withLock { state in
                    close(state.channel)  // under the lock, like every close `stop()` could race
                    state.channel = -1
                    return !state.stopped && received != nil
                }
                guard let received else { return }
                guard accepted else {
                    close(received)
                    return
                }
                Self.bootstrap(routes).withBoundSocket(received).whenSuccess { server in
                    let keep = routes.state.withLock { state in
                        if !state.stopped { state.server = server }
                        return !state.stopped
                    }
                    if !keep { server.close(promise: nil) }
                }
            }
        }
    }

    /// `--proxy-server` for Chromium.
    package var proxyServer: String { "http://127.0.0.1:\(port)" }

    /// Sends new connections to `proxy` from now on (nil: close them unanswered).
    package func route(to proxy: VettingProxy?) {
        routes.state.withLock { $0.current = proxy }
    }

    /// Stops accepting; connections already handed to a proxy are that proxy's to end.
    package func stop() {
        let server = routes.state.withLock { state -> (any Channel)? in
            state.stopped = true
            state.current = nil
            if state.channel >= 0 { shutdown(state.channel, Int32(SHUT_RDWR)) }  // wakes the wait for the sandbox's listener
            defer { state.server = nil }
            return state.server
        }
        server?.close(promise: nil)
    }

    deinit { stop() }

    /// Accepts on the shared event loops; each connection goes to the proxy current when it
    /// arrives, or is closed unanswered when there is none.
    private static func bootstrap(_ routes: Routes) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            // Each direction of a splice ends on its own, as the browser and the origin close them.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                guard let proxy = routes.state.withLock({ $0.stopped ? nil : $0.current }) else {
                    return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                }
                return proxy.adopt(channel)
            }
    }
}
