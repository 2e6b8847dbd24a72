import GatewayProcess
import Synchronization
import Testing

/// The one slot pool: first come, first served; deadlines, cancellation and shutdown.
@Suite(.timeLimit(.minutes(1))) struct SlotPoolTests {
    @Test func waitersAreServedInTheOrderTheyCame() async throws {
        let pool = SlotPool(["only"])
        let order = Recorder()
        let holder = Gate()
        let holding = Task {
            try await pool.withSlot { _ in await holder.wait() }
        }
        try await Task.sleep(for: .milliseconds(50))
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<8 {
            waiters.append(
                Task {
                    try await pool.withSlot { _ in order.append(index) }
                }
            )
            // Each waiter queues before the next one comes.
            try await Task.sleep(for: .milliseconds(30))
        }
        holder.open()
        try await holding.value
        for waiter in waiters { try await waiter.value }
        #expect(order.values == Array(0..<8))
    }

    @Test func aWaiterLeavesAtItsDeadline() async throws {
        let pool = SlotPool([1])
        let holder = Gate()
        let holding = Task { try await pool.withSlot { _ in await holder.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        await #expect(throws: SlotPool<Int>.TimedOut.self) {
            try await pool.withSlot(deadline: .now + .milliseconds(200)) { _ in }
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        holder.open()
        try await holding.value
        // The slot went back, not to the waiter that left.
        #expect(try await pool.withSlot(deadline: .now + .seconds(1)) { $0 } == 1)
    }

    @Test func aCancelledWaiterLeavesAtOnce() async throws {
        let pool = SlotPool([1])
        let holder = Gate()
        let holding = Task { try await pool.withSlot { _ in await holder.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let waiter = Task { try await pool.withSlot { _ in } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        holder.open()
        try await holding.value
    }

    @Test func shutdownFailsWaitersAndEndsBusySlotsWhenReturned() async throws {
        let ended = Recorder()
        let pool = SlotPool([1, 2], afterShutDown: { slot in ended.append(slot) })
        let holder = Gate()
        let holding = Task { try await pool.withSlot { _ in await holder.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let idle = pool.shutDown()
        #expect(idle == [2])
        await #expect(throws: SlotPool<Int>.ShutDown.self) { try await pool.withSlot { _ in } }
        holder.open()
        try await holding.value
        #expect(ended.values == [1])
    }

    /// The warmest slot (the one released last) is reused first.
    @Test func theLastReleasedSlotIsReusedFirst() async throws {
        let pool = SlotPool(["a", "b"])
        #expect(try await pool.withSlot { $0 } == "a")
        #expect(try await pool.withSlot { $0 } == "a")
    }
}

/// Holds a task until opened.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Numbers appended from several tasks.
final class Recorder: Sendable {
    private let state = Mutex<[Int]>([])

    func append(_ value: Int) { state.withLock { $0.append(value) } }
    var values: [Int] { state.withLock { $0 } }
}
