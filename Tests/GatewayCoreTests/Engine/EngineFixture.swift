import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import GatewayURLSecurity
import Testing

/// The engine with the real SQLite job store, the real library and the real `pdfinfo`
/// inspector; converters are real lightweight ones (passthrough, or scripted misbehaviour).
/// Time is a `ManualClock` with the default (seconds-long) backoff: `runUntilDone` jumps the
/// clock to each retry instead of waiting for it.
struct EngineFixture {
    let fixture: LibraryFixture
    let store: SQLiteJobStore
    let engine: JobEngine
    let clock = ManualClock()

    init(
        _ converter: any Converter,
        timeout: Duration = .seconds(20),
        maxAttempts: Int = 3,
        routes: [JobType: ConverterRouter.Route]? = nil,
        converterRecheck: Duration = .seconds(30),
        sharesStore: Bool = false,
        filer makeFiler: (Library) -> any DocumentFiler = { $0 }
    ) async throws {
        fixture = try await LibraryFixture()
        store = try SQLiteJobStore(database: fixture.library.embeddedDatabase())
        engine = JobEngine(
            configuration: .init(
                defaultTimeout: [.docToPDF: timeout],
                maxAttempts: maxAttempts,
                idlePoll: .milliseconds(20),
                shutdownGrace: .milliseconds(200),
                clock: clock.jobClock,
                sharesStore: sharesStore,
                converterRecheck: converterRecheck
            ),
            store: store,
            staging: fixture.library.staging,
            router: routes.map { ConverterRouter(routes: $0) } ?? ConverterRouter(everything: converter, slots: 2),
            inspector: fixture.inspector,
            filer: makeFiler(fixture.library)
        )
    }

    /// The intake in front of this engine: no limits, no idempotency keys, the default URL rules.
    func intake(limits: JobIntake.Limits = .none) -> JobIntake {
        JobIntake(engine: engine, filer: fixture.library, inspector: fixture.inspector, urlCheck: URLCheck(), limits: limits, idempotency: nil)
    }

    /// Creates a DOC job for a fixture PDF, uploads it and submits it.
    func submit(_ pdf: String = "one-page.pdf", name: String? = nil) async throws -> Job {
        let job = try await engine.create(owner: "alice", spec: JobSpec(type: .docToPDF, originalFilename: pdf, folder: "Converted", name: name))
        try await engine.receiveInput(Fixtures.pdf(pdf), for: job, copying: true)
        return try await engine.submit(job.id)
    }

    /// Runs the engine until `id` is terminal (or `limit` passes), then stops it.
    func runUntilDone(_ id: UUID, limit: Duration = .seconds(30)) async throws -> Job {
        let runner = Task { await engine.run() }
        defer { runner.cancel() }
        return try await wait(for: id, limit: limit, skippingRetryWaits: true) { $0.state.status.isTerminal }
    }

    /// Waits, without polling, for job `id` to satisfy `condition`: the job's current state and
    /// each change the engine publishes are checked as they come. With `skippingRetryWaits`, a
    /// retry's wait is the clock's business: the clock jumps to it. Returns the last state seen
    /// when `limit` passes first.
    func wait(
        for id: UUID,
        on engine: JobEngine? = nil,
        limit: Duration = .seconds(30),
        skippingRetryWaits: Bool = false,
        until condition: @escaping @Sendable (Job) -> Bool
    ) async throws -> Job {
        let engine = engine ?? self.engine
        let (changes, continuation) = AsyncStream.makeStream(of: Job.self)
        let token = engine.observe(id) { continuation.yield($0) }
        defer { engine.stopObserving(id, token: token) }
        let timeout = afterTimeLimit(limit) { continuation.finish() }
        defer { timeout.cancel() }
        // Read after subscribing, so no change falls between the two.
        if let current = try await engine.job(id) { continuation.yield(current) }
        var last: Job?
        for await job in changes {
            last = job
            if condition(job) { return job }
            if skippingRetryWaits, job.state.status == .queued, let notBefore = job.state.notBefore { clock.advance(to: notBefore) }
        }
        return try #require(last)
    }

    /// A new engine on the same store and library, as after a restart of the process.
    func restarted(with converter: any Converter = PassthroughConverter()) -> JobEngine {
        JobEngine(
            configuration: engine.configuration,
            store: store,
            staging: fixture.library.staging,
            router: ConverterRouter(everything: converter, slots: 1),
            inspector: fixture.inspector,
            filer: fixture.library
        )
    }

    func documents() async throws -> [Document] {
        try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true)).documents
    }
}

/// The real library, with a cancel arriving right after it files: the window between filing
/// and the job's success that a client's DELETE can hit.
final class CancelAfterFiling: DocumentFiler, @unchecked Sendable {
    // Set once while the fixture is built, before the engine runs; read only by the engine's task.
    var library: Library?
    var engine: JobEngine?
    var jobID: UUID?
    private(set) var filed = 0

    func fileConverted(
        _ path: String,
        id: UUID,
        owner: String,
        folder: String?,
        name: String,
        conflict: ConflictPolicy,
        info: PDFInfo
    ) async throws -> Document {
        let document = try await #require(library).fileConverted(
            path,
            id: id,
            owner: owner,
            folder: folder,
            name: name,
            conflict: conflict,
            info: info
        )
        filed += 1
        _ = try await #require(engine).cancel(try #require(jobID))
        return document
    }

    func checkDestination(folder: String?, owner: String) async throws {
        try await #require(library).checkDestination(folder: folder, owner: owner)
    }

    func discardConverted(id: UUID, owner: String) async throws -> Bool {
        try await #require(library).discardConverted(id: id, owner: owner)
    }

    func storedDocument(id: UUID, owner: String) async throws -> (document: Document, path: String) {
        try await #require(library).storedDocument(id: id, owner: owner)
    }

    func replaceContent(of id: UUID, owner: String, with path: String, info: PDFInfo) async throws -> Document {
        try await #require(library).replaceContent(of: id, owner: owner, with: path, info: info)
    }

    func keepResult(_ path: String, jobID: UUID) throws { try #require(library).keepResult(path, jobID: jobID) }
    func keptResult(jobID: UUID) -> String? { library?.keptResult(jobID: jobID) }
    func discardResult(jobID: UUID) { library?.discardResult(jobID: jobID) }
}
