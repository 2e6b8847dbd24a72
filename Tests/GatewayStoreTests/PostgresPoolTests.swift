import Foundation
import GatewayPostgres
import GatewayTestSupport
import Testing

/// The database through postgres-nio's `PostgresClient`, under more polls than it has
/// connections: every poll waits its turn and is answered; a wrong URL fails at once saying so;
/// a closed database answers `database_closed` rather than waiting.
@Suite("PostgreSQL client")
struct PostgresPoolTests {
    @Test(.timeLimit(.minutes(1)))
    func pollsQueuedBehindTwoConnectionsAllFinishBesideLongStatements() async throws {
        let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL(), maxConnections: 2)
        let jobs = PostgresJobStore(database: database)
        let job = ContractJobs.make()
        try await jobs.insert(job, activeLimit: nil)
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            // Statements that hold a connection for a while each, again and again.
            group.addTask {
                for _ in 0..<20 { try await database.withConnection { try await $0.execute("SELECT pg_sleep(0.005)") } }
                return 0
            }
            for _ in 0..<300 {
                group.addTask { try await jobs.job(id: job.id)?.id == job.id ? 1 : 0 }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 300, "every poll read the job")
        await database.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aDatabaseThatCannotBeReachedFailsAtOnceNamingItself() async throws {
        // A port nothing listens on: loopback, refused at once.
        let url = "postgres://pdfgate@127.0.0.1:1/nowhere"
        let error = await #expect(throws: PostgresStoreError.self) { try await PostgresDatabase.open(url: url) }
        #expect(error?.code == "database_unavailable", "\(String(describing: error))")
        #expect(error?.message.contains("127.0.0.1:1") == true, "it names where it looked: \(String(describing: error?.message))")
    }

    @Test(.timeLimit(.minutes(1)))
    func callsAfterCloseAreToldSo() async throws {
        let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL(), maxConnections: 1)
        let jobs = PostgresJobStore(database: database)
        try await jobs.insert(ContractJobs.make(), activeLimit: nil)
        await database.close()
        let error = await #expect(throws: PostgresStoreError.self) { try await jobs.job(id: UUID()) }
        #expect(error?.code == "database_closed", "\(String(describing: error))")
    }

    @Test(.timeLimit(.minutes(1)))
    func aStatementRefusedForItsContentSaysWhatPostgreSQLSaid() async throws {
        let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL(), maxConnections: 1)
        let error = await #expect(throws: PostgresStoreError.self) { try await database.query("SELECT no_such_column FROM jobs") }
        #expect(error?.code == "database_error" && error?.sqlState == "42703", "\(String(describing: error))")
        // The connection that carried the refused statement goes on serving.
        #expect(try await database.query("SELECT 1").count == 1)
        await database.close()
    }
}
