import Foundation
import GatewayProcess

#if canImport(Glibc)
import Glibc
#endif

/// Chromium's DevTools protocol over `--remote-debugging-pipe`: JSON messages, each ended by a
/// NUL byte, on one socket (Chromium's fd 3 and 4 both point at it). A wait for the next message
/// holds no thread (`ReadinessMonitor`). For one caller at a time (a warm browser's print:
/// `ChromiumBrowser`), which is why it may be handed between tasks unchecked. Cut it by killing
/// Chromium, which closes the socket.
package final class DevToolsPipe: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    private let socket: Int32
    private var buffer: [UInt8] = []
    /// Where `recv` writes; allocated once, not per message (a page sends hundreds of events).
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    private var nextID = 1
    /// Events that arrived while waiting for something else, oldest first.
    private var pending: [[String: Any]] = []
    /// No call or wait outlasts it; the holder sets it per job.
    package var deadline: ContinuousClock.Instant

    /// Sees every event as it arrives, before any call or wait looks at it; returning true
    /// consumes it. A print sets it for its page: a paused request (`Fetch.requestPaused`) must
    /// be answered even while a call such as `Page.navigate` waits for the very request.
    package var observer: (([String: Any]) -> Bool)?

    /// Whether the browser is still running: its helpers may hold the pipe open after it died,
    /// so an end of file cannot be relied on to say so.
    private let alive: @Sendable () -> Bool

    package init(socket: Int32, deadline: ContinuousClock.Instant, alive: @escaping @Sendable () -> Bool = { true }) {
        self.socket = socket
        self.deadline = deadline
        self.alive = alive
    }

    /// Sends a command and waits for its answer; throws the protocol's error message.
    @discardableResult
    package func call(_ method: String, _ params: [String: Any] = [:], session: String? = nil) async throws -> [String: Any] {
        let id = try send(method, params, session: session)
        while true {
            guard let answer = try await read(until: deadline) else { throw Failure(description: "Chromium did not answer \(method) in time") }
            guard answer["id"] as? Int == id else {
                if answer["method"] != nil { pending.append(answer) }
                continue
            }
            if let error = answer["error"] as? [String: Any] {
                throw Failure(description: "\(method): \(error["message"] as? String ?? "\(error)")")
            }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// Sends a command without waiting for its answer, which is dropped when it comes; the id.
    @discardableResult
    package func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil) throws -> Int {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        let bytes = try JSONSerialization.data(withJSONObject: message) + [0]
        guard Self.sendAll(socket, Array(bytes)) else { throw Failure(description: "Chromium closed the DevTools pipe") }
        return id
    }

    /// The first event for which `matches` holds, waiting until `limit`; nil when none came.
    package func event(until limit: ContinuousClock.Instant, where matches: ([String: Any]) -> Bool) async throws -> [String: Any]? {
        if let index = pending.firstIndex(where: matches) { return pending.remove(at: index) }
        while let message = try await read(until: min(limit, deadline)) {
            if message["method"] != nil, matches(message) { return message }
            if message["method"] != nil { pending.append(message) }
        }
        return nil
    }

    /// The next event (queued ones first), or nil at `limit`.
    package func nextEvent(until limit: ContinuousClock.Instant) async throws -> [String: Any]? {
        if !pending.isEmpty { return pending.removeFirst() }
        while let message = try await read(until: min(limit, deadline)) {
            if message["method"] != nil { return message }  // a late answer to an abandoned call is dropped
        }
        return nil
    }

    /// Forgets queued events (a finished job's stragglers).
    package func discardEvents() {
        pending.removeAll()
    }

    /// The next message, or nil at `limit`. Throws when Chromium has gone.
    private func read(until limit: ContinuousClock.Instant) async throws -> [String: Any]? {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let data = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                let message = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                if message["method"] != nil, let observer, observer(message) { continue }
                return message
            }
            if ContinuousClock.now >= limit { return nil }
            // In slices of a quarter second, to notice a browser that died with its pipe still open.
            guard await ReadinessMonitor.shared.readable(socket, until: min(limit, .now + .milliseconds(250))) else {
                if !alive() { throw Failure(description: "Chromium exited") }
                continue  // re-check the limit
            }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { throw Failure(description: "Chromium closed the DevTools pipe") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Sends every byte, retrying short writes; false once Chromium has closed its end.
    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                sent += count
            }
            return true
        }
    }
}
