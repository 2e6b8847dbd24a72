import GatewayProcess
import GatewayTestSupport
import Synchronization
import Testing

/// The one slot pool: first come, first served; deadlines, cancellation and shutdown.
@Suite(.timeLimit(.minutes(1))) struct SlotPoolTests {
    @Test func waitersAreServedInTheOrderTheyCame() async throws {
        let pool = SlotPool(["only"])
        let order = Recorder()
        let (holder, holding) = await holdTheSlot(of: pool)
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<8 {
            waiters.append(
                Task {
                    try await pool.withSlot { _ in order.append(index) }
                }
            )
            // Each waiter queues before the next one comes. The pool shows no sign of a queued
            // waiter (a suspended continuation): each is given a moment, in which it must wait.
            try await keepsHolding("waiter \(index) waits while the slot is held", for: .milliseconds(30)) { order.values.isEmpty }
        }
        holder.open()
        try await holding.value
        for waiter in waiters { try await waiter.value }
        #expect(order.values == Array(0..<8))
    }

    @Test func aWaiterLeavesAtItsDeadline() async throws {
        let pool = SlotPool([1])
        let (holder, holding) = await holdTheSlot(of: pool)
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
        let (holder, holding) = await holdTheSlot(of: pool)
        let left = Gate()
        let waiter = Task {
            defer { left.open() }
            try await pool.withSlot { _ in }
        }
        // No sign marks the waiter queued (a suspended continuation): it is given a moment, in
        // which it must wait.
        try await keepsHolding("the waiter waits while the slot is held", for: .milliseconds(50)) { !left.isOpen }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        holder.open()
        try await holding.value
    }

    @Test func shutdownFailsWaitersAndEndsBusySlotsWhenReturned() async throws {
        let ended = Recorder()
        let pool = SlotPool([1, 2], afterShutDown: { slot in ended.append(slot) })
        let (holder, holding) = await holdTheSlot(of: pool)
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

/// Numbers appended from several tasks.
final class Recorder: Sendable {
    private let state = Mutex<[Int]>([])

    func append(_ value: Int) { state.withLock { $0.append(value) } }
    var values: [Int] { state.withLock { $0 } }
}

/// Takes `pool`'s slot in a task of its own and returns once it holds it; opening the gate
/// lets the slot go, and the task ends with that.
private func holdTheSlot<Slot: Sendable>(of pool: SlotPool<Slot>) async -> (Gate, Task<Void, any Error>) {
    let (holder, held) = (Gate(), Gate())
    let holding = Task {
        try await pool.withSlot { _ in
            held.open()
            await holder.wait()
        }
    }
    await held.wait()
    return (holder, holding)
}
