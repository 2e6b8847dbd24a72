import Foundation
import GatewayCore
import GatewayStore
import Testing

/// `Idempotency-Key` bookkeeping on a real SQLite store: holds from the first byte, replays,
/// and what happens to keys a crash, a slow upload or a day leaves behind.
@Suite("Idempotency keys")
struct IdempotencyTests {
    @Test func aHeldKeyIsInProgressThenUsedAndOwnersDoNotShare() throws {
        let fixture = try LibraryFixture()
        let keys = IdempotencyStore(database: fixture.library.database)
        let now = Date()
        #expect(try keys.hold(owner: "alice", key: "k", now: now) == .held)
        #expect(try keys.hold(owner: "alice", key: "k", now: now) == .inProgress, "a second request while the first runs")
        // Two stores on one database, as two processes: the hold is seen by both.
        let other = IdempotencyStore(database: try Library(root: fixture.root).database)
        #expect(try other.hold(owner: "alice", key: "k", now: now) == .inProgress)
        let job = UUID()
        try keys.complete(owner: "alice", key: "k", requestHash: "h1", jobID: job)
        #expect(try other.hold(owner: "alice", key: "k", now: now) == .used(requestHash: "h1", jobID: job))
        #expect(try keys.hold(owner: "bob", key: "k", now: now) == .held, "keys are per owner")
        try keys.release(owner: "alice", key: "k")
        #expect(try keys.hold(owner: "alice", key: "k", now: now) == .used(requestHash: "h1", jobID: job), "a used key is never released")
    }

    @Test func aHoldACrashLeftIsReleasedAtStartAndWhenNoLongerRefreshed() throws {
        let fixture = try LibraryFixture()
        let now = Date()
        let before = IdempotencyStore(database: fixture.library.database)
        #expect(try before.hold(owner: "alice", key: "crash", now: now) == .held)
        // The process dies before `complete`: a restart releases the hold.
        let after = IdempotencyStore(database: fixture.library.database)
        try after.recoverAfterRestart(now: now)
        #expect(try after.hold(owner: "alice", key: "crash", now: now) == .held)
        // A slow upload refreshes its hold: still in progress long after it began.
        try after.refresh(owner: "alice", key: "crash", now: now.addingTimeInterval(250))
        #expect(try after.hold(owner: "alice", key: "crash", now: now.addingTimeInterval(400)) == .inProgress)
        // A hold nobody refreshes for five minutes is abandoned, not in progress.
        #expect(try after.hold(owner: "alice", key: "crash", now: now.addingTimeInterval(551)) == .held)
    }

    @Test func keysAreForgottenAfterADay() throws {
        let fixture = try LibraryFixture()
        let keys = IdempotencyStore(database: fixture.library.database)
        let day0 = Date()
        #expect(try keys.hold(owner: "alice", key: "old", now: day0) == .held)
        let job = UUID()
        try keys.complete(owner: "alice", key: "old", requestHash: "h", jobID: job)
        #expect(try keys.hold(owner: "alice", key: "old", now: day0.addingTimeInterval(3600)) == .used(requestHash: "h", jobID: job))
        // A day and an hour later the sweep (run from the create path) has forgotten it.
        #expect(try keys.hold(owner: "alice", key: "other", now: day0.addingTimeInterval(25 * 3600)) == .held)
        #expect(try keys.hold(owner: "alice", key: "old", now: day0.addingTimeInterval(25 * 3600)) == .held)
    }
}
