import Foundation
import GatewayJobModel
import GatewayStore
import GatewayTestSupport
import Testing

/// `Idempotency-Key` bookkeeping, the same on SQLite and PostgreSQL: holds from the first byte
/// seen by every node, replays, and what happens to keys a crash, a slow upload or a day leaves
/// behind.
@Suite("Idempotency keys")
struct IdempotencyTests {
    @Test(arguments: StoreBackend.allCases)
    func aHeldKeyIsInProgressThenUsedAndOwnersDoNotShare(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let keys = try await store.node().keys
        let now = Date()
        #expect(try await keys.hold(owner: "alice", key: "k", now: now) == .held)
        #expect(try await keys.hold(owner: "alice", key: "k", now: now) == .inProgress, "a second request while the first runs")
        // Another process or node on the same store sees the hold.
        let other = try await store.node().keys
        #expect(try await other.hold(owner: "alice", key: "k", now: now) == .inProgress)
        let job = UUID()
        try await keys.complete(owner: "alice", key: "k", requestHash: "h1", jobID: job)
        #expect(try await other.hold(owner: "alice", key: "k", now: now) == .used(requestHash: "h1", jobID: job))
        #expect(try await keys.hold(owner: "bob", key: "k", now: now) == .held, "keys are per owner")
        try await keys.release(owner: "alice", key: "k")
        #expect(try await keys.hold(owner: "alice", key: "k", now: now) == .used(requestHash: "h1", jobID: job), "a used key is never released")
    }

    @Test(arguments: StoreBackend.allCases)
    func aHoldIsInProgressWhileRefreshedAndTakenOverWhenAbandoned(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let now = Date()
        let first = try await store.node().keys
        #expect(try await first.hold(owner: "alice", key: "slow", now: now) == .held)
        // A slow upload refreshes its hold: still in progress long after it began.
        try await first.refresh(owner: "alice", key: "slow", now: now.addingTimeInterval(250))
        let other = try await store.node().keys
        #expect(try await other.hold(owner: "alice", key: "slow", now: now.addingTimeInterval(400)) == .inProgress)
        // A hold nobody refreshes for five minutes is abandoned (its node died), not in progress.
        #expect(try await other.hold(owner: "alice", key: "slow", now: now.addingTimeInterval(551)) == .held)
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentHoldsOfOneKeyFromThreeNodesHaveOneWinner(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        var nodes: [any IdempotencyKeys] = []
        for _ in 0..<3 { nodes.append(try await store.node().keys) }
        let now = Date()
        let holds = try await withThrowingTaskGroup(of: [KeyHold].self) { group in
            for keys in nodes {
                group.addTask {
                    var holds: [KeyHold] = []
                    for _ in 0..<5 { holds.append(try await keys.hold(owner: "alice", key: "race", now: now)) }
                    return holds
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(holds.filter { $0 == .held }.count == 1, "\(holds)")
        #expect(holds.filter { $0 == .inProgress }.count == 14)
    }

    @Test(arguments: StoreBackend.allCases)
    func keysAreForgottenAfterADay(_ backend: StoreBackend) async throws {
        let keys = try await backend.make().node().keys
        let day0 = Date()
        #expect(try await keys.hold(owner: "alice", key: "old", now: day0) == .held)
        let job = UUID()
        try await keys.complete(owner: "alice", key: "old", requestHash: "h", jobID: job)
        #expect(try await keys.hold(owner: "alice", key: "old", now: day0.addingTimeInterval(3600)) == .used(requestHash: "h", jobID: job))
        // A day and an hour later the sweep (run from the create path) has forgotten it.
        #expect(try await keys.hold(owner: "alice", key: "other", now: day0.addingTimeInterval(25 * 3600)) == .held)
        #expect(try await keys.hold(owner: "alice", key: "old", now: day0.addingTimeInterval(25 * 3600)) == .held)
    }

    @Test func theEmbeddedStoreReleasesHoldsACrashLeftAtStart() async throws {
        // One process owns an embedded store, so its start may release every hold; a node of a
        // cluster may not (the holds may be other nodes' requests) and relies on abandonment.
        let fixture = try await LibraryFixture()
        let now = Date()
        let before = try IdempotencyStore(database: fixture.library.embeddedDatabase())
        #expect(try await before.hold(owner: "alice", key: "crash", now: now) == .held)
        let after = try IdempotencyStore(database: fixture.library.embeddedDatabase())
        try await after.recoverAfterRestart(now: now)
        #expect(try await after.hold(owner: "alice", key: "crash", now: now) == .held)
    }
}
