import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayStore
import GatewayTestSupport
import Testing

/// Engines sharing one store, as gateways sharing one database: a job whose engine died stays
/// its own until the lease lapses, then another engine resumes it and files exactly one document.
@Suite("Leases between engines")
struct LeaseTakeoverTests {
    @Test func aDeadEnginesJobIsTakenOverOnceItsLeaseLapses() async throws {
        // Engine A takes the job, then stops renewing (its process "dies" mid-attempt).
        let fixture = try await EngineFixture(ScriptedConverter([.hang]))
        let job = try await fixture.submit()
        let first = Task { await fixture.engine.run() }
        let running = try await fixture.wait(for: job.id) { $0.state.status == .processing }
        let lease = try #require(running.lease, "a running job is leased")
        #expect(lease.node == fixture.engine.configuration.node)
        first.cancel()
        await first.value
        #expect(try await fixture.store.job(id: job.id)?.lease == lease, "a dead engine's lease stays until it lapses")

        // Engine B shares the store: at its start the job is not its to resume.
        let second = JobEngine(
            configuration: .init(idlePoll: .milliseconds(20), clock: fixture.clock.jobClock, sharesStore: true),
            store: SQLiteJobStore(database: try await Library.open(root: fixture.fixture.root).embeddedDatabase()),
            staging: fixture.fixture.library.staging,
            router: ConverterRouter(everything: PassthroughConverter(), slots: 1),
            inspector: fixture.fixture.inspector,
            filer: fixture.fixture.library
        )
        let runner = Task { await second.run() }
        defer { runner.cancel() }
        try await keepsHolding("the lease still holds: B leaves the job alone", for: .milliseconds(300)) {
            try await second.job(job.id)?.state.status == .processing
        }

        // Past the lease, B resumes the job from its staged input and files it once.
        fixture.clock.advance(to: lease.expires.addingTimeInterval(1))
        let done = try await fixture.wait(for: job.id, on: second) { $0.state.status.isTerminal }
        #expect(done.state.status == .succeeded, "\(done.state)")
        #expect(done.lease == nil)
        await #expect(try fixture.documents().count == 1)
    }

    @Test func aRunningEngineRenewsItsLeases() async throws {
        let fixture = try await EngineFixture(ScriptedConverter([.hang]))
        let job = try await fixture.submit()
        let runner = Task { await fixture.engine.run() }
        defer { runner.cancel() }
        let first = try #require(try await fixture.wait(for: job.id) { $0.state.status == .processing }.lease)
        // A third of the lease later, the running engine has moved its lease on.
        fixture.clock.advance(by: fixture.engine.configuration.lease.inSeconds / 3 + 1)
        let renewed = try await until("the running engine moves its lease on") {
            try await fixture.store.job(id: job.id)?.lease.flatMap { $0.expires > first.expires ? $0 : nil }
        }
        #expect(renewed.expires > first.expires && renewed.node == first.node)
        #expect(try await fixture.store.lapsedLeases(now: first.expires.addingTimeInterval(1), limit: 10).isEmpty)
    }

    @Test func anAttemptWhoseJobWasTakenOverChangesNothing() async throws {
        // The attempt times out after 1 s; before that, another engine takes the job over.
        let fixture = try await EngineFixture(ScriptedConverter([.hang]), timeout: .seconds(1))
        let job = try await fixture.submit()
        let runner = Task { await fixture.engine.run() }
        defer { runner.cancel() }
        let running = try await fixture.wait(for: job.id) { $0.state.status == .processing }
        let theirs = JobLease(node: "other-engine", expires: fixture.clock.now.addingTimeInterval(3600))
        try await fixture.store.update(id: job.id) { $0.lease = theirs }

        // The timed-out attempt would record a failure; fenced by its lease, it records nothing.
        let after = try await fixture.wait(for: job.id, limit: .seconds(3)) { $0.state.status != .processing }
        #expect(after.state.status == .processing, "\(after.state)")
        let stored = try #require(try await fixture.store.job(id: job.id))
        #expect(stored.lease == theirs && stored.revision == running.revision && stored.state.attempts == running.state.attempts)
    }
}
