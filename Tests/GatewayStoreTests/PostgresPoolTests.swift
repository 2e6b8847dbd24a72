import Foundation
import GatewayCore
import GatewayPostgres
import GatewayTestSupport
import Testing

/// The connection pool under more awaited polls than it has connections: a poll that finds no
/// idle connection waits in turn and is handed the next one released, while synchronous callers
/// (the engine's) keep theirs; nothing waits forever, not even when the pool closes under it.
@Suite("PostgreSQL connection pool")
struct PostgresPoolTests {
    @Test(.timeLimit(.minutes(1)))
    func pollsQueuedBehindTwoConnectionsAllFinishBesideSynchronousCallers() async throws {
        let database = try PostgresDatabase(url: try TestPostgres.freshDatabaseURL(), maxConnections: 2)
        defer { database.close() }
        let jobs = PostgresJobStore(database: database)
        let job = ContractJobs.make()
        try await jobs.insert(job, activeLimit: nil)
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            // Two threads of its own keep taking both connections for a while each.
            group.addTask {
                try await onThread {
                    for _ in 0..<20 { try database.withConnection { try $0.execute("SELECT pg_sleep(0.005)") } }
                }
                return 0
            }
            group.addTask {
                for _ in 0..<20 { _ = try await jobs.job(id: job.id) }
                return 0
            }
            for _ in 0..<300 {
                group.addTask {
                    try await jobs.job(id: job.id)?.id == job.id ? 1 : 0
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 300, "every poll read the job")
    }

    /// A poll holds its connection while PostgreSQL answers, inside a task; were that task to
    /// resume on the cooperative pool, synchronous calls filling every cooperative thread (each
    /// waiting for that very connection) would never let it: the poll's task runs on the
    /// connection's event loop instead.
    @Test(.timeLimit(.minutes(1)))
    func pollsFinishWhileEveryCooperativeThreadWaitsInASynchronousCall() async throws {
        let database = try PostgresDatabase(url: try TestPostgres.freshDatabaseURL(), maxConnections: 1)
        defer { database.close() }
        let jobs = PostgresJobStore(database: database)
        let job = ContractJobs.make()
        try await jobs.insert(job, activeLimit: nil)
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await jobs.job(id: job.id)?.id == job.id ? 1 : 0 }
            }
            // More synchronous callers than cooperative threads, each blocking its thread.
            for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2) {
                group.addTask {
                    for _ in 0..<10 { _ = try await jobs.job(id: job.id) }
                    return 0
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 100, "every poll read the job")
    }

    @Test(.timeLimit(.minutes(1)))
    func pollsWaitingWhenThePoolClosesAreToldSo() async throws {
        let url = try TestPostgres.freshDatabaseURL()
        let database = try PostgresDatabase(url: url, maxConnections: 1)
        let observer = try PostgresDatabase(url: url, maxConnections: 1)
        defer { observer.close() }
        let jobs = PostgresJobStore(database: database)
        let job = ContractJobs.make()
        try await jobs.insert(job, activeLimit: nil)
        // The one connection sleeps (seen running by another pool, so no timing is guessed);
        // polls queue behind it, or find the pool closed; the pool closes meanwhile. None may
        // get the connection, which the sleep holds well past the close.
        let sleeper = Task { try await onThread { try database.withConnection { try $0.execute("SELECT pg_sleep(3)") } } }
        while try observer.query("SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(3)' AND state = 'active'").isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        let polls = (0..<5).map { _ in Task { try await jobs.job(id: job.id) } }
        try await Task.sleep(for: .milliseconds(200))
        database.close()
        for poll in polls {
            let error = await #expect(throws: PostgresStoreError.self) { try await poll.value }
            #expect(error?.code == "database_closed")
        }
        _ = await sleeper.result
    }
}
