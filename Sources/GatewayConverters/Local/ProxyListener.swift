import Foundation
import GatewayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The address Chromium's proxy setting points at: a listening socket on 127.0.0.1 whose
/// connections go to whichever `VettingProxy` is current. A warm browser keeps one for its whole
/// life and switches it from job to job, so each job's requests are judged by that job's rules;
/// a connection that arrives between jobs is closed unanswered.
final class ProxyListener: Sendable {
    /// Where the listening socket comes from.
    enum Source: Sendable {
        /// Bound here on 127.0.0.1, a free port (a browser running without a sandbox).
        case loopback
        /// Bound on 127.0.0.1:`port` inside a browser's sandbox, by `pdfgate sandbox-exec`,
        /// which sends it over `channel`: the only address that sandbox can reach.
        case fromSandbox(channel: Int32, port: Int)
    }

    let port: Int
    private let state = Mutex(State())

    private struct State {
        /// Ours to close; -1 until bound or received.
        var listener: Int32 = -1
        /// The socket a sandbox sends its listener over, until it has or `stop()`.
        var channel: Int32 = -1
        var current: VettingProxy?
        var stopped = false
    }

    /// Starts accepting at once, or once the sandbox has sent its listener; `stop()` ends it.
    init(_ source: Source) throws(JobFailure) {
        switch source {
        case .loopback:
            let fd = try Self.bindLoopback()
            port = fd.port
            state.withLock { $0.listener = fd.socket }
            startThread { [self] in acceptLoop(fd.socket) }
        case .fromSandbox(let channel, let port):
            self.port = port
            state.withLock { $0.channel = channel }
            startThread { [self] in
                // The browser starts only after the helper sent it, so this wait is short.
                let received = DescriptorPassing.receive(over: channel, timeout: .seconds(60))
                let accepted = state.withLock { state in
                    close(state.channel)  // under the lock, like every close `stop()` could race
                    state.channel = -1
                    if !state.stopped, let received { state.listener = received }
                    return !state.stopped && received != nil
                }
                guard let fd = received else { return }
                if accepted { acceptLoop(fd) } else { close(fd) }
            }
        }
    }

    /// `--proxy-server` for Chromium.
    var proxyServer: String { "http://127.0.0.1:\(port)" }

    /// Sends new connections to `proxy` from now on (nil: close them unanswered).
    func route(to proxy: VettingProxy?) {
        state.withLock { $0.current = proxy }
    }

    /// Stops accepting; connections already handed to a proxy are that proxy's to end.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            state.current = nil
            if state.listener >= 0 { shutdown(state.listener, Int32(SHUT_RDWR)) }
            if state.channel >= 0 { shutdown(state.channel, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        stop()
        state.withLock { state in
            if state.listener >= 0 { close(state.listener) }
            if state.channel >= 0 { close(state.channel) }
        }
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }  // Glibc's module has no accept4
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // shut down
            }
            let (proxy, stopped) = state.withLock { ($0.current, $0.stopped) }
            guard !stopped else {
                close(client)
                return
            }
            if let proxy { proxy.serve(client) } else { close(client) }
        }
    }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "pdfgate-proxy-listener"
        thread.start()
    }

    private static func bindLoopback() throws(JobFailure) -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw VettingProxy.unavailable("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw VettingProxy.unavailable("bind 127.0.0.1: \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
