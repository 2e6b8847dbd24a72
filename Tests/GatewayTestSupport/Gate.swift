import Synchronization

/// A one-way event: tasks wait until it is opened, and once open it stays open. A test's fake
/// opens one to say "I have started", a test opens one to let a held fake go on.
public final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// Returns once the gate is open (at once if it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate, letting every waiter and every later `wait()` go on.
    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
