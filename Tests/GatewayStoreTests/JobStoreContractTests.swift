import Foundation
import GatewayJobModel
import GatewayTestSupport
import Synchronization
import Testing

/// What every `JobStore` promises, run unchanged against SQLite and PostgreSQL: jobs read back
/// as written, lists page newest first without gaps or repeats, the scheduler's queries find
/// exactly their jobs, an update is atomic, and the owner's limit holds for concurrent inserts
/// from several nodes.
@Suite("JobStore contract")
struct JobStoreContractTests {
    @Test(arguments: StoreBackend.allCases)
    func aJobReadsBackAsWrittenAndUpdatesInPlace(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let node = try await store.node()
        let job = ContractJobs.make()
        try await node.jobs.insert(job, activeLimit: nil)
        #expect(ContractJobs.same(try await node.jobs.job(id: job.id), job))
        let other = ContractJobs.make(owner: "bob", at: 1)
        try await node.jobs.insert(other, activeLimit: nil)
        let both = try await node.jobs.jobs(ids: [job.id, UUID(), other.id]).sorted { $0.owner < $1.owner }
        #expect(both.count == 2 && ContractJobs.same(both[0], job) && ContractJobs.same(both[1], other), "the two that exist, in one read")
        #expect(try await node.jobs.jobs(ids: []).isEmpty)
        #expect(try await node.jobs.job(id: UUID()) == nil)

        let updated = try await node.jobs.update(id: job.id) { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.uploaded, now: ContractJobs.epoch, random: &random)
            job.revision += 1
        }
        #expect(updated.state.inputReady && updated.revision == 2)
        #expect(ContractJobs.same(try await store.node().jobs.job(id: job.id), updated), "another node reads the update")
        let missing = await #expect(throws: JobStoreError.self) { try await node.jobs.update(id: UUID()) { _ in } }
        #expect(missing?.code == "job_not_found")
        // A change that throws changes nothing.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await node.jobs.update(id: job.id) { job in
                job.revision = 99
                throw Refused()
            }
        }
        #expect(try await node.jobs.job(id: job.id)?.revision == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func listsPageNewestFirstPerOwnerWithFilters(_ backend: StoreBackend) async throws {
        let node = try await backend.make().node()
        var alices: [Job] = []
        for index in 0..<25 {
            // Pairs share a creation time: the id breaks the tie, and no page repeats or skips one.
            let job = ContractJobs.make(type: index.isMultiple(of: 3) ? .urlToPDF : .docToPDF, at: index / 2)
            try await node.jobs.insert(job, activeLimit: nil)
            alices.append(job)
        }
        try await node.jobs.insert(ContractJobs.make(owner: "bob"), activeLimit: nil)

        var seen: [UUID] = []
        var cursor: String?
        repeat {
            let page = try await node.jobs.list(owner: "alice", status: nil, type: nil, limit: 7, cursor: cursor)
            #expect(page.jobs.count <= 7)
            seen += page.jobs.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        let expected = alices.sorted { ($0.createdAt, $0.id.lowercased) > ($1.createdAt, $1.id.lowercased) }.map(\.id)
        #expect(seen == expected, "every job once, newest first")

        let urls = try await node.jobs.list(owner: "alice", status: nil, type: .urlToPDF, limit: 100, cursor: nil).jobs
        #expect(urls.count == 9 && urls.allSatisfy { $0.spec.type == .urlToPDF })
        let queued = try await node.jobs.list(owner: "alice", status: .queued, type: nil, limit: 100, cursor: nil).jobs
        #expect(Set(queued.map(\.id)) == Set(urls.map(\.id)), "URL jobs start queued, file jobs created")
        let refused = await #expect(throws: JobStoreError.self) {
            try await node.jobs.list(owner: "alice", status: nil, type: nil, limit: 5, cursor: "nonsense")
        }
        #expect(refused?.code == "invalid_cursor")
    }

    @Test(arguments: StoreBackend.allCases)
    func theSchedulersQueriesFindExactlyTheirJobs(_ backend: StoreBackend) async throws {
        let node = try await backend.make().node()
        let now = ContractJobs.epoch.addingTimeInterval(60)
        let ready = ContractJobs.make(type: .urlToPDF, at: 1)
        let older = ContractJobs.make(type: .urlToPDF, at: 0)
        // Failed once: queued again, not before its backoff.
        let later = ContractJobs.make(
            type: .urlToPDF,
            at: 2,
            state: try ContractJobs.handled(
                JobStateMachine(needsUpload: false, deadline: now.addingTimeInterval(600)),
                [.started, .failed(JobFailure(.transient, code: "peer_busy", "try later"))],
                at: now
            )
        )
        let retryAt = try #require(later.state.notBefore)
        #expect(retryAt > now)
        let waitingForUpload = ContractJobs.make(at: 3)
        let overdue = ContractJobs.make(at: 4, state: JobStateMachine(uploadBy: now.addingTimeInterval(-1), thenTimeout: 60))
        let finished = ContractJobs.make(
            type: .urlToPDF,
            at: 5,
            state: try ContractJobs.handled(
                JobStateMachine(needsUpload: false, deadline: now.addingTimeInterval(600)),
                [.started, .filed(UUID())],
                at: now
            )
        )
        for job in [ready, older, later, waitingForUpload, overdue, finished] { try await node.jobs.insert(job, activeLimit: nil) }

        #expect(
            try await node.jobs.due(now: now, types: [.urlToPDF], limit: 10).map(\.id) == [older.id, ready.id],
            "oldest first, not before its time"
        )
        #expect(try await node.jobs.due(now: now, types: [.urlToPDF], limit: 1).map(\.id) == [older.id])
        #expect(try await node.jobs.due(now: now, types: [.docToPDF], limit: 10).isEmpty, "only queued jobs of the types asked")
        #expect(try await node.jobs.due(now: now, types: [], limit: 10).isEmpty)
        #expect(try await node.jobs.due(now: retryAt, types: [.urlToPDF], limit: 10).count == 3)
        #expect(try await node.jobs.expired(now: now, limit: 10).map(\.id) == [overdue.id], "unfinished and past the deadline")
        #expect(Set(try await node.jobs.unfinished().map(\.id)) == Set([ready, older, later, waitingForUpload, overdue].map(\.id)))
        #expect(try await node.jobs.activeCount(owner: "alice") == 5)
        #expect(try await node.jobs.statusCounts() == [.queued: 3, .created: 2, .succeeded: 1])
    }

    /// A poll awaits the store; it must read what `job(id:)` reads, and never wedge when
    /// synchronous reads hold the cooperative threads at the same time (on PostgreSQL a
    /// connection handed to a suspended poll could otherwise wait forever for one of them).
    @Test(.timeLimit(.minutes(1)), arguments: StoreBackend.allCases)
    func pollsReadWhatWritesWroteWhileSynchronousReadsHoldTheThreads(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let jobs = try await store.node().jobs
        let job = ContractJobs.make()
        try await jobs.insert(job, activeLimit: nil)
        #expect(ContractJobs.same(try await jobs.job(id: job.id), job))
        #expect(try await jobs.job(id: UUID()) == nil)
        try await jobs.update(id: job.id) { $0.revision += 1 }
        #expect(try await jobs.job(id: job.id)?.revision == 2, "a poll sees the last write")

        let revisions = try await withThrowingTaskGroup(of: Int?.self) { group in
            for round in 0..<400 {
                group.addTask {
                    // Every fourth task blocks its cooperative thread in a synchronous read,
                    // the way a request handler does.
                    await round % 4 == 0 ? try jobs.job(id: job.id)?.revision : try await jobs.job(id: job.id)?.revision
                }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(revisions.count == 400 && revisions.allSatisfy { $0 == 2 })
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentUpdatesFromTwoNodesLoseNothing(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let job = ContractJobs.make()
        try await store.node().jobs.insert(job, activeLimit: nil)
        let nodes = await [try store.node(), try store.node()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes {
                let jobs = node.jobs
                group.addTask {
                    for _ in 0..<40 { try await jobs.update(id: job.id) { $0.revision += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await nodes[0].jobs.job(id: job.id)?.revision == 81, "80 read-change-writes, none lost")
    }

    @Test(arguments: StoreBackend.allCases)
    func theOwnersLimitHoldsForConcurrentInsertsFromThreeNodes(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let nodes = await [try store.node(), try store.node(), try store.node()]
        let outcomes = try await withThrowingTaskGroup(of: [Bool].self) { group in
            for node in nodes {
                let jobs = node.jobs
                group.addTask {
                    var outcomes: [Bool] = []
                    for index in 0..<10 {
                        do {
                            try await jobs.insert(ContractJobs.make(at: index), activeLimit: 4)
                            outcomes.append(true)
                        } catch is ActiveJobLimitReached {
                            outcomes.append(false)
                        }
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.filter { $0 }.count == 4, "exactly the limit, of 30 concurrent inserts")
        #expect(try await nodes[0].jobs.activeCount(owner: "alice") == 4)
        try await nodes[1].jobs.insert(ContractJobs.make(owner: "bob"), activeLimit: 4)  // another owner is not held back
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentClaimsFromThreeNodesTakeEachDueJobOnce(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let first = try await store.node()
        var queued: [UUID] = []
        for index in 0..<30 {
            let job = ContractJobs.make(type: .urlToPDF, at: index)
            try await first.jobs.insert(job, activeLimit: nil)
            queued.append(job.id)
        }
        let nodes = await [first, try store.node(), try store.node()]
        let now = ContractJobs.epoch.addingTimeInterval(1)
        let claims = try await withThrowingTaskGroup(of: [Job].self) { group in
            for (index, node) in nodes.enumerated() {
                let jobs = node.jobs
                let lease = JobLease(node: "node-\(index)", expires: now.addingTimeInterval(15))
                group.addTask {
                    var mine: [Job] = []
                    while true {
                        let claimed = try await jobs.claimDue(now: now, types: [.urlToPDF], limit: 3, lease: lease) { job in
                            var random = SystemRandomNumberGenerator()
                            _ = try job.state.handle(.started, now: now, random: &random)
                        }
                        if claimed.isEmpty { return mine }
                        mine += claimed
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claims.count == 30 && Set(claims.map(\.id)) == Set(queued), "each job claimed once")
        for job in claims {
            let stored = try #require(try await first.jobs.job(id: job.id))
            #expect(stored.state.status == .processing && stored.lease == job.lease && stored.lease != nil)
        }
        #expect(try await first.jobs.due(now: now, types: [.urlToPDF], limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func leasesAreRenewedByTheirNodeAndLapseWhenItStops(_ backend: StoreBackend) async throws {
        let node = try await backend.make().node()
        let now = ContractJobs.epoch.addingTimeInterval(1)
        for index in 0..<3 { try await node.jobs.insert(ContractJobs.make(type: .urlToPDF, at: index), activeLimit: nil) }
        let start: @Sendable (inout Job) throws -> Void = { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.started, now: now, random: &random)
        }
        let a = try await node.jobs.claimDue(
            now: now,
            types: [.urlToPDF],
            limit: 2,
            lease: JobLease(node: "a", expires: now.addingTimeInterval(15)),
            start
        )
        let b = try await node.jobs.claimDue(
            now: now,
            types: [.urlToPDF],
            limit: 2,
            lease: JobLease(node: "b", expires: now.addingTimeInterval(15)),
            start
        )
        #expect(a.count == 2 && b.count == 1)

        // "a" renews its own leases, and cannot renew "b"'s.
        let renewed = try await node.jobs.renewLeases(a.map(\.id) + b.map(\.id), lease: JobLease(node: "a", expires: now.addingTimeInterval(30)))
        #expect(renewed == Set(a.map(\.id)))
        #expect(try await node.jobs.lapsedLeases(now: now.addingTimeInterval(10), limit: 10).isEmpty)
        // "b" stopped renewing: past its lease, its job is lapsed, "a"'s are not.
        #expect(try await node.jobs.lapsedLeases(now: now.addingTimeInterval(20), limit: 10).map(\.id) == b.map(\.id))

        // A job that leaves PROCESSING keeps no lease.
        let done = try await node.jobs.update(id: a[0].id) { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.filed(UUID()), now: now, random: &random)
        }
        #expect(done.state.status == .succeeded)
        #expect(try await node.jobs.job(id: a[0].id)?.lease == nil)
        #expect(try await node.jobs.renewLeases([a[0].id], lease: JobLease(node: "a", expires: now.addingTimeInterval(45))).isEmpty)
    }

    /// A node changes the jobs it runs from what it last wrote of them (PostgreSQL keeps that in
    /// memory): another node's write in between must still be seen, a refusal must be judged on
    /// the stored job, and a renewed lease must survive the next change.
    @Test(arguments: StoreBackend.allCases)
    func aNodeChangesAJobFromItsStoredStateWhateverItLastWrote(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let (a, b) = (try await store.node(), try await store.node())
        let now = ContractJobs.epoch.addingTimeInterval(1)
        let job = ContractJobs.make(type: .urlToPDF)
        try await a.jobs.insert(job, activeLimit: nil)
        try await a.jobs.update(id: job.id) { $0.revision += 1 }
        try await b.jobs.update(id: job.id) { $0.revision += 10 }
        let seen = try await a.jobs.update(id: job.id) { $0.revision += 100 }
        #expect(seen.revision == 112, "a's change started from b's write")

        let claim: @Sendable (inout Job) throws -> Void = { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.started, now: now, random: &random)
        }
        let claimed = try await a.jobs.claimDue(
            now: now,
            types: [.urlToPDF],
            limit: 1,
            lease: JobLease(node: "a", expires: now.addingTimeInterval(15)),
            claim
        )
        #expect(claimed.map(\.id) == [job.id])
        let renewed = JobLease(node: "a", expires: now.addingTimeInterval(60))
        #expect(try await a.jobs.renewLeases([job.id], lease: renewed) == [job.id])
        let phase = try await a.jobs.update(id: job.id) { $0.revision += 1 }
        #expect(phase.lease == renewed, "the change kept the renewed lease")
        #expect(try await b.jobs.job(id: job.id)?.lease == renewed, "and so did the row")
        #expect(try await b.jobs.lapsedLeases(now: now.addingTimeInterval(30), limit: 10).isEmpty)

        // b cancels the running job. a last wrote it PROCESSING; a change of a's that refuses
        // anything but a running job must end refused by the stored, cancelled one.
        try await b.jobs.update(id: job.id) { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.cancelRequested, now: now, random: &random)
        }
        struct NotRunning: Error {}
        let judged = Mutex<[JobStatus]>([])
        await #expect(throws: NotRunning.self) {
            try await a.jobs.update(id: job.id) { job in
                judged.withLock { $0.append(job.state.status) }
                if job.state.status != .processing { throw NotRunning() }
            }
        }
        #expect(judged.withLock { $0.last } == .cancelled, "judged on the stored job: \(judged.withLock { $0 })")
        #expect(try await b.jobs.job(id: job.id)?.state.status == .cancelled)

        // The other way round: a last wrote a job QUEUED, b started it; a's change that needs a
        // running job must not be refused by the job a remembers.
        let second = ContractJobs.make(type: .urlToPDF, at: 1)
        try await a.jobs.insert(second, activeLimit: nil)
        _ = try await b.jobs.claimDue(now: now, types: [.urlToPDF], limit: 1, lease: JobLease(node: "b", expires: now.addingTimeInterval(15)), claim)
        let started = try await a.jobs.update(id: second.id) { job in
            if job.state.status != .processing { throw NotRunning() }
            job.revision += 1
        }
        #expect(started.state.status == .processing && started.lease?.node == "b")
    }
}
