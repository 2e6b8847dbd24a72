import Foundation
import GatewayJobModel
import GatewayLibrary
import GatewayPostgres
import GatewayStore
import GatewayTestSupport
import Testing

extension StoreBackend {
    /// A new, empty store of this kind. `node()` opens it again, as another process (SQLite,
    /// one file) or another gateway (PostgreSQL, one database) would.
    func make() async throws -> StoreUnderTest {
        switch self {
        case .sqlite:
            let fixture = try await LibraryFixture()
            return StoreUnderTest(keepAlive: fixture) {
                let library = try await Library.open(root: fixture.root)
                return (SQLiteJobStore(database: try library.embeddedDatabase()), IdempotencyStore(database: try library.embeddedDatabase()), library)
            }
        case .postgres:
            let url = try TestPostgres.freshDatabaseURL()
            return StoreUnderTest(keepAlive: nil) {
                let database = try await PostgresDatabase.open(url: url)
                return (PostgresJobStore(database: database), PostgresIdempotencyKeys(database: database), database)
            }
        }
    }
}

/// One store of a backend and a way to open it again from "another node".
struct StoreUnderTest {
    typealias Node = (jobs: any JobStore, keys: any IdempotencyKeys, handle: any Sendable)
    let keepAlive: (any Sendable)?
    let open: () async throws -> Node

    init(keepAlive: (any Sendable)?, open: @escaping () async throws -> Node) {
        self.keepAlive = keepAlive
        self.open = open
    }

    func node() async throws -> Node { try await open() }
}

/// Jobs for contract tests: created at whole milliseconds, which both backends store exactly.
enum ContractJobs {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    static func make(
        owner: String = "alice",
        type: JobType = .docToPDF,
        at offset: Int = 0,
        state: JobStateMachine? = nil
    ) -> Job {
        let created = epoch.addingTimeInterval(Double(offset) / 1000)
        let spec = type == .urlToPDF ? JobSpec(type: type, url: "https://example.com/") : JobSpec(type: type, originalFilename: "a.docx")
        let state =
            state
            ?? (type == .urlToPDF
                ? JobStateMachine(needsUpload: false, deadline: created.addingTimeInterval(600))
                : JobStateMachine(uploadBy: created.addingTimeInterval(900), thenTimeout: 600))
        return Job(owner: owner, spec: spec, state: state, createdAt: created, updatedAt: created)
    }

    /// `state` after `events`, each at `now`.
    static func handled(_ state: JobStateMachine, _ events: [JobStateMachine.Event], at now: Date) throws -> JobStateMachine {
        var state = state
        var random = SystemRandomNumberGenerator()
        for event in events { _ = try state.handle(event, now: now, random: &random) }
        return state
    }

    /// The same job, dates compared to the millisecond.
    static func same(_ a: Job?, _ b: Job?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.id == b.id && a.owner == b.owner && a.spec == b.spec && a.state == b.state && a.revision == b.revision
            && abs(a.createdAt.timeIntervalSince(b.createdAt)) < 0.001 && abs(a.updatedAt.timeIntervalSince(b.updatedAt)) < 0.001
    }
}
