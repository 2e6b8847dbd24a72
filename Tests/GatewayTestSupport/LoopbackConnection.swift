import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
