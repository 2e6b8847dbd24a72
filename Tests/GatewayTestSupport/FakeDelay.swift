import Foundation
import GatewayCore

/// Time a fake takes on purpose: a slow answer, a trickling body, a converter that hangs, a
/// pause between polls. Time is what such a fake is about, so its delays live here, named, and
/// not in the tests.
public enum FakeDelay {
    /// Blocks the calling thread (a loopback handler's own) for `duration`: a peer thinking.
    public static func block(for duration: Duration) {
        Thread.sleep(forTimeInterval: duration.inSeconds)
    }

    /// Suspends the task for `duration`; throws `CancellationError` if it is cancelled first.
    public static func suspend(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    /// Suspends until the task is cancelled, then throws `CancellationError`: work that never
    /// ends by itself.
    public static func hangUntilCancelled() async throws -> Never {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

extension ResponseWriter {
    /// Answers in full once `delay` has passed: a slow peer.
    public func respond(after delay: Duration, status: Int, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        FakeDelay.block(for: delay)
        try respond(status: status, headers: headers, body: body)
    }

    /// A text answer sent once `delay` has passed.
    public func respond(after delay: Duration, status: Int, headers: [(String, String)] = [], text: String) throws {
        try respond(after: delay, status: status, headers: headers, body: Array(text.utf8))
    }

    /// Sends `bytes` of a started body `piece` bytes at a time, with `interval` after each: a body
    /// that trickles in.
    public func trickle(_ bytes: [UInt8], piece: Int = 1, every interval: Duration) throws {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + piece, bytes.endIndex)
            try write(Array(bytes[start..<end]))
            FakeDelay.block(for: interval)
            start = end
        }
    }

    /// Sends `piece` again and again with `interval` after each, until a write fails because the
    /// client went away (that error is thrown): an endless stream.
    public func trickleForever(_ piece: [UInt8], every interval: Duration) throws -> Never {
        while true {
            try write(piece)
            FakeDelay.block(for: interval)
        }
    }
}
