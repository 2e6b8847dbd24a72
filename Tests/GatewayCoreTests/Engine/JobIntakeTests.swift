import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayStore
import GatewayTestSupport
import GatewayURLSecurity
import Testing

/// The rules of a create, held by `JobIntake` and the store rather than by any one client: the
/// owner's limit in the insert's own transaction, an input published once, the same checks
/// for every entry point. Real SQLite, real staging on disk.
@Suite("Job intake")
struct JobIntakeTests {
    @Test func theActiveLimitHoldsForConcurrentCreatesFromTwoStoresOnOneDatabase() async throws {
        // Two engines on one database file, as two processes would be, creating at once: exactly
        // the limit is created and the refused leave no staging. (Whether the count is atomic
        // with the insert is proved deterministically by the next test.)
        let fixture = try await LibraryFixture()
        let second = try await Library.open(root: fixture.root)
        let intakes = try [fixture.library, second].map { library in
            JobIntake(
                engine: JobEngine(
                    configuration: .init(),
                    store: SQLiteJobStore(database: try library.embeddedDatabase()),
                    staging: library.staging,
                    router: ConverterRouter(everything: PassthroughConverter(), slots: 1),
                    inspector: fixture.inspector,
                    filer: library
                ),
                filer: library,
                inspector: fixture.inspector,
                urlCheck: URLCheck(),
                limits: JobIntake.Limits(activeJobsPerOwner: 5),
                idempotency: nil
            )
        }
        let spec = JobSpec(type: .docToPDF, originalFilename: "report.docx")
        let outcomes = await withTaskGroup(of: Result<Job, any Error>.self) { group in
            for attempt in 0..<24 {
                group.addTask {
                    do {
                        return .success(try await intakes[attempt % 2].create(spec, owner: "alice").job)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let created = outcomes.filter { if case .success = $0 { true } else { false } }
        let refusals = outcomes.compactMap { outcome -> IntakeError? in
            if case .failure(let error) = outcome { error as? IntakeError } else { nil }
        }
        #expect(created.count == 5, "exactly the limit is created")
        #expect(refusals.count == 19 && refusals.allSatisfy { $0.kind == IntakeError.Kind.tooManyJobs && $0.code == "too_many_jobs" })
        #expect(try await SQLiteJobStore(database: fixture.library.embeddedDatabase()).activeCount(owner: "alice") == 5)
        // A refused create leaves no staging behind.
        let staged = try FileManager.default.contentsOfDirectory(atPath: fixture.library.paths.staging)
        #expect(staged.count == 5, "\(staged)")
    }

    @Test func theLimitIsCountedInsideTheInsertsTransaction() async throws {
        // Another process's connection gives alice her one allowed job in a transaction it has
        // not committed yet. An insert that counted before taking the write lock would see none
        // and pass; one that counts inside its transaction waits for that commit, then refuses.
        let fixture = try await LibraryFixture()
        let store = try SQLiteJobStore(database: fixture.library.embeddedDatabase())
        let other = try await Library.open(root: fixture.root)
        func job(_ owner: String) async -> Job {
            let now = Date()
            return Job(
                owner: owner,
                spec: JobSpec(type: .urlToPDF, url: "https://example.com/"),
                state: JobStateMachine(needsUpload: false, deadline: now.addingTimeInterval(60)),
                createdAt: now,
                updatedAt: now
            )
        }
        let bobs = await job("bob")
        try await store.insert(bobs, activeLimit: nil)
        let (holding, changed) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let writer = Thread {
            try? other.embeddedDatabase().pool.write { db in
                try db.execute(sql: "UPDATE jobs SET owner = 'alice' WHERE id = ?", arguments: [bobs.id.uuidString.lowercased()])
                changed.signal()
                holding.wait()
            }
        }
        writer.start()
        changed.wait()
        let insertEnded = Locked(false)
        let insert = Task.detached {
            defer { insertEnded.update { $0 = true } }
            try await store.insert(job("alice"), activeLimit: 1)
        }
        // SQLite shows no sign of a connection waiting for the write lock: the insert is given
        // time to reach it (or, broken, to have counted 0), and must not end while it is held.
        try await keepsHolding("the insert waits for the other transaction", for: .milliseconds(300)) { !insertEnded.value }
        holding.signal()
        let outcome = await insert.result
        #expect(throws: ActiveJobLimitReached(active: 1, limit: 1)) { try outcome.get() }
        #expect(try await store.activeCount(owner: "alice") == 1)
    }

    @Test func anInputIsPublishedOnceWhicheverRequestComesSecond() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let job = try await engine.engine.create(owner: "alice", spec: JobSpec(type: .docToPDF, originalFilename: "a.pdf"))
        let first = try await engine.engine.receiveInput(Fixtures.pdf("one-page.pdf"), for: job, copying: true)
        #expect(first.state.inputReady)
        // A second upload of the same job, say on another node, is refused before it replaces anything.
        await #expect(throws: StagingError(.inputExists, "this job's file has already been uploaded; an upload URL works once")) {
            try await engine.engine.receiveInput(Fixtures.pdf("many-pages.pdf"), for: job, copying: true)
        }
        let staged = engine.engine.staging.inputPath(for: job)
        #expect(try Data(contentsOf: URL(fileURLWithPath: staged)) == Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        // And the state machine refuses a second `.uploaded` on its own.
        var state = first.state
        var random = SystemRandomNumberGenerator()
        #expect(throws: JobTransitionError.self) { _ = try state.handle(.uploaded, now: engine.clock.now, random: &random) }
    }

    @Test func everyEntryPointGetsTheSameChecks() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let intake = engine.intake()
        func refusal(_ spec: JobSpec, input: JobIntake.Input? = nil) async -> IntakeError? {
            do {
                _ = try await intake.create(spec, owner: "alice", inputs: input.map { [$0] } ?? [])
                return nil
            } catch {
                return error as? IntakeError
            }
        }
        let epubAsOffice = await refusal(JobSpec(type: .docToPDF, originalFilename: "novel.epub"), input: .copying(Fixtures.pdf("one-page.pdf")))
        #expect(epubAsOffice?.kind == .unsupportedFormat && epubAsOffice?.message.contains("EBOOK_TO_PDF") == true)
        let loopback = await refusal(JobSpec(type: .urlToPDF, url: "http://127.0.0.1:9/"))
        #expect(loopback?.kind == .urlRefused && loopback?.code == "url_forbidden", "\(String(describing: loopback))")
        let callback = await refusal(JobSpec(type: .urlToPDF, url: "https://example.com/", callbackURL: "http://169.254.169.254/"))
        #expect(callback?.kind == .urlRefused)
        let urlWithFile = await refusal(JobSpec(type: .urlToPDF, url: "https://example.com/"), input: .copying(Fixtures.pdf("one-page.pdf")))
        #expect(urlWithFile?.code == "conflicting_type" && urlWithFile?.kind == .conflictingOptions)
        let documentsAsPage = await refusal(JobSpec(type: .urlToPDF, documents: [UUID()]))
        #expect(documentsAsPage?.code == "conflicting_type" && documentsAsPage?.kind == .conflictingOptions)
        let nameless = await refusal(JobSpec(type: .ebookToPDF))
        #expect(nameless?.code == "filename_required")
        let forever = await refusal(JobSpec(type: .urlToPDF, url: "https://example.com/", timeoutSeconds: 86_400))
        #expect(forever?.code == "invalid_argument")
        #expect(try await engine.store.activeCount(owner: "alice") == 0, "no refusal stored a job")
    }
}
