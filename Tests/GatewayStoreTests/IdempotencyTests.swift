import Foundation
import GatewayStore
import Testing

/// `Idempotency-Key` bookkeeping on a real SQLite store: replays, mismatches, and what happens
/// to keys a crash or a day leaves behind.
@Suite("Idempotency keys")
struct IdempotencyTests {
    @Test func sameBodyReplaysOtherBodyMismatchesUnfinishedIsInProgress() throws {
        let fixture = try LibraryFixture()
        let keys = IdempotencyStore(database: fixture.library.database)
        let now = Date()
        #expect(try keys.claim(owner: "alice", key: "k", requestHash: "h1", now: now) == .claimed)
        #expect(try keys.claim(owner: "alice", key: "k", requestHash: "h1", now: now) == .inProgress)
        let job = UUID()
        try keys.complete(owner: "alice", key: "k", jobID: job)
        #expect(try keys.claim(owner: "alice", key: "k", requestHash: "h1", now: now) == .replay(jobID: job))
        #expect(try keys.claim(owner: "alice", key: "k", requestHash: "h2", now: now) == .mismatch)
        #expect(try keys.claim(owner: "bob", key: "k", requestHash: "h2", now: now) == .claimed, "keys are per owner")
    }

    @Test func aClaimACrashLeftBehindIsReleasedAtStartAndWhenStale() throws {
        let fixture = try LibraryFixture()
        let now = Date()
        let before = IdempotencyStore(database: fixture.library.database)
        #expect(try before.claim(owner: "alice", key: "crash", requestHash: "h", now: now) == .claimed)
        // The process dies before `complete`: a restart releases the claim.
        let after = IdempotencyStore(database: fixture.library.database)
        try after.recoverAfterRestart(now: now)
        #expect(try after.claim(owner: "alice", key: "crash", requestHash: "h", now: now) == .claimed)
        // Without a restart, a claim that has had minutes to finish is abandoned, not in progress.
        #expect(try after.claim(owner: "alice", key: "crash", requestHash: "h", now: now.addingTimeInterval(60)) == .inProgress)
        #expect(try after.claim(owner: "alice", key: "crash", requestHash: "other", now: now.addingTimeInterval(301)) == .claimed)
    }

    @Test func keysAreForgottenAfterADay() throws {
        let fixture = try LibraryFixture()
        let keys = IdempotencyStore(database: fixture.library.database)
        let day0 = Date()
        #expect(try keys.claim(owner: "alice", key: "old", requestHash: "h", now: day0) == .claimed)
        try keys.complete(owner: "alice", key: "old", jobID: UUID())
        #expect(try keys.claim(owner: "alice", key: "old", requestHash: "new body", now: day0.addingTimeInterval(3600)) == .mismatch)
        // A day and an hour later the sweep (run from the create path) has forgotten it.
        #expect(try keys.claim(owner: "alice", key: "other", requestHash: "h", now: day0.addingTimeInterval(25 * 3600)) == .claimed)
        #expect(try keys.claim(owner: "alice", key: "old", requestHash: "new body", now: day0.addingTimeInterval(25 * 3600)) == .claimed)
    }
}
