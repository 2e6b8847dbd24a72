import Foundation
import Synchronization

/// Fired once when the server starts shutting down: long-lived responses (event streams)
/// register here and end, so the listener is not held open by clients that never leave.
final class ClosingSignal: Sendable {
    private let state = Mutex<(fired: Bool, handlers: [UUID: @Sendable () -> Void])>((false, [:]))

    /// Calls `handler` at shutdown (at once if it already began); returns a token for `remove`.
    func register(_ handler: @escaping @Sendable () -> Void) -> UUID {
        let token = UUID()
        let firedAlready = state.withLock { state in
            if !state.fired { state.handlers[token] = handler }
            return state.fired
        }
        if firedAlready { handler() }
        return token
    }

    /// Returns once the signal has fired, or when the waiting task is cancelled.
    func fired() async {
        let (fired, continuation) = AsyncStream.makeStream(of: Never.self)
        let token = register { continuation.finish() }
        defer { remove(token) }
        // Ends when the handler finishes the stream, or at once when the task is cancelled.
        for await _ in fired {}
    }

    func remove(_ token: UUID) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }

    func fire() {
        let handlers = state.withLock { state in
            state.fired = true
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }
}
