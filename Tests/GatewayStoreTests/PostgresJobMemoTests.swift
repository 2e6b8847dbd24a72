import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayPostgres

/// A PostgreSQL node starts a job's next change from what it last wrote (`JobVersionMemo`) instead
/// of reading the row. That is only sound if what it remembers is exactly what a read would give,
/// at the row's version: checked here through a job's whole life, with dates that are not whole
/// milliseconds, options, operations, a retry carrying its failure, a lease and its renewal.
@Suite("PostgreSQL job memo")
struct PostgresJobMemoTests {
    @Test func whatANodeRemembersOfAJobIsWhatAReadOfItsRowGives() async throws {
        let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL())
        let store = PostgresJobStore(database: database)
        let now = Date()  // sub-microsecond parts, which PostgreSQL drops
        var spec = JobSpec(type: .docToPDF, originalFilename: "report.docx", folder: "Reports", name: "Q3")
        spec.options.landscape = true
        spec.options.browser.scale = 0.8
        spec.operations = [.rotate(angle: 90, pages: nil)]
        let job = Job(
            owner: "alice",
            spec: spec,
            state: JobStateMachine(uploadBy: now.addingTimeInterval(900), thenTimeout: 600),
            createdAt: now,
            updatedAt: now
        )
        try await store.insert(job, activeLimit: nil)

        func checkRemembered(_ step: String) async throws {
            let remembered = try #require(store.memo[job.id], "\(step): remembered")
            let read = try #require(try await store.job(id: job.id))
            #expect(remembered.job == read, "\(step): the remembered job is the stored one")
            let version = try await database.query("SELECT row_version FROM jobs WHERE id = \(job.id)").first?.decode(Int64.self)
            #expect(remembered.version == version, "\(step): at the row's version")
        }
        func apply(_ event: JobStateMachine.Event) async throws {
            try await store.update(id: job.id) { job in
                var random = SystemRandomNumberGenerator()
                _ = try job.state.handle(event, now: Date(), random: &random)
                job.updatedAt = Date()
                job.revision += 1
            }
        }
        try await checkRemembered("inserted")
        try await apply(.uploaded)
        try await apply(.submitted)
        try await checkRemembered("queued")

        let lease = JobLease(node: "n1", expires: Date().addingTimeInterval(15.123_456_7))
        let start: @Sendable (inout Job) throws -> Void = { job in
            var random = SystemRandomNumberGenerator()
            _ = try job.state.handle(.started, now: Date(), random: &random)
        }
        #expect(try await store.claimDue(now: Date(), types: [.docToPDF], limit: 1, lease: lease, start).count == 1)
        try await checkRemembered("claimed")
        #expect(try await store.renewLeases([job.id], lease: JobLease(node: "n1", expires: Date().addingTimeInterval(30.5))) == [job.id])
        try await checkRemembered("lease renewed")
        try await apply(.entered(.inspecting))
        try await checkRemembered("a phase")
        try await apply(.failed(JobFailure(.transient, code: "converter_crashed", "LibreOffice went away")))
        try await checkRemembered("queued for a retry, with its failure")

        try await apply(.cancelRequested)
        #expect(store.memo[job.id] == nil, "a finished job is forgotten")
        #expect(try await store.job(id: job.id)?.state.status == .cancelled)
    }
}
