import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import GatewayURLSecurity
import Testing

@Suite("Job engine")
struct JobEngineTests {
    @Test func aJobIsConvertedInspectedAndFiled() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let job = try await engine.submit("many-pages.pdf", name: "Report")
        #expect(job.state.status == .queued)
        let done = try await engine.runUntilDone(job.id)
        #expect(done.state.status == .succeeded)
        let document = try await #require(try engine.documents().first)
        #expect(document.id == done.state.documentID && document.id == Job.documentID(for: job.id))
        #expect(document.relativePath == "alice/Converted/Report.pdf")
        #expect(document.info.pageCount == (try await pdfinfoPageCount(Fixtures.pdf("many-pages.pdf"))))
        #expect(!FileManager.default.fileExists(atPath: engine.fixture.library.paths.staging + "/" + job.id.lowercased), "staging is cleaned")
        #expect(done.revision > job.revision)
    }

    @Test func transientFailuresAreRetriedThenSucceed() async throws {
        let busy = JobFailure.converterBusy("busy")
        let converter = ScriptedConverter([.fail(busy), .fail(busy)])
        let engine = try await EngineFixture(converter)
        let done = try await engine.runUntilDone(try engine.submit().id)
        #expect(done.state.status == .succeeded && done.state.attempts == 3 && converter.calls == 3)
        await #expect(try engine.documents().count == 1)
    }

    @Test func aRetryWaitsForItsBackoffOnTheInjectedClockAndNoLonger() async throws {
        let busy = JobFailure.converterBusy("busy")
        let converter = ScriptedConverter([.fail(busy)])
        let engine = try await EngineFixture(converter)
        let submitted = try await engine.submit()
        let runner = Task { await engine.engine.run() }
        defer { runner.cancel() }
        let start = engine.clock.now
        let waiting = try await engine.wait(for: submitted.id) { $0.state.notBefore != nil }
        // The delay is the one policy's, drawn with the clock's next generator: known exactly.
        let notBefore = try #require(waiting.state.notBefore)
        let delay = notBefore.timeIntervalSince(start)
        let policy = BackoffPolicy()
        let base = Double(policy.initial.components.seconds) + Double(policy.initial.components.attoseconds) / 1e18
        #expect(delay >= base * (1 - policy.jitter) - 0.001 && delay <= base + 0.001, "first retry within the policy's jitter: \(delay) s")
        #expect(waiting.state.status == .queued && waiting.state.failure?.code == "converter_busy")

        // Real time passes, the injected clock does not: the retry does not start.
        try await keepsHolding("the retry waits for the injected clock", for: .milliseconds(300)) {
            let status = try await engine.engine.job(submitted.id)?.state.status
            return converter.calls == 1 && status == .queued
        }

        // The clock reaches the retry time: it runs at the engine's next look.
        engine.clock.advance(to: notBefore)
        let done = try await engine.runUntilDone(submitted.id)
        #expect(done.state.status == .succeeded && converter.calls == 2)
    }

    @Test func retryDelaysAreReproducibleFromTheSeed() async throws {
        func firstRetryDelay() async throws -> TimeInterval {
            let busy = JobFailure.converterBusy("busy")
            let engine = try await EngineFixture(ScriptedConverter([.fail(busy)]))
            let start = engine.clock.now
            let submitted = try await engine.submit()
            let runner = Task { await engine.engine.run() }
            defer { runner.cancel() }
            let waiting = try await engine.wait(for: submitted.id) { $0.state.notBefore != nil }
            guard let notBefore = waiting.state.notBefore else {
                Issue.record("the job never scheduled a retry")
                return -1
            }
            return notBefore.timeIntervalSince(start)
        }
        let first = try await firstRetryDelay()
        #expect(first > 0)
        #expect(try await firstRetryDelay() == first, "same seed, same jitter")
    }

    @Test func aFileJobNeverUploadedExpiresAndStopsCountingAgainstItsOwner() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let waiting = try await engine.engine.create(owner: "alice", spec: JobSpec(type: .docToPDF, originalFilename: "a.docx"))
        #expect(try await engine.store.activeCount(owner: "alice") == 1)
        let runner = Task { await engine.engine.run() }
        defer { runner.cancel() }
        try await keepsHolding("inside its window it waits", for: .milliseconds(100)) {
            try await engine.engine.job(waiting.id)?.state.status == .created
        }

        engine.clock.advance(by: 20 * 60 + 1)  // the default upload window, and a second
        let job = try await engine.wait(for: waiting.id, limit: .seconds(3)) { $0.state.status != .created }
        #expect(job.state.status == .failed && job.state.failure?.code == "upload_expired", "\(job.state)")
        // The cache learns the new state inside the store's write, so a reader of the cache can
        // be a moment ahead of the store's commit.
        try await eventually("the store stops counting the job") { try await engine.store.activeCount(owner: "alice") == 0 }
        #expect(try await engine.store.activeCount(owner: "alice") == 0)
        #expect(!FileManager.default.fileExists(atPath: engine.engine.staging.inputPath(for: job)), "its staging is gone")
    }

    @Test func aBacklogOnOneBackendNeitherHidesAnotherBackendsJobsNorOutlivesItsDeadline() async throws {
        // DOC_TO_PDF has one slot, held by a hang, and more queued jobs behind it than one read
        // of due jobs returns; an EBOOK_TO_PDF job on another backend must still run, and the
        // queued DOC jobs must fail at their deadline, not whenever the slot frees.
        let hang = ScriptedConverter(Array(repeating: .hang, count: 100))
        let engine = try await EngineFixture(
            hang,
            routes: [.docToPDF: .init(converter: hang, slots: 1), .ebookToPDF: .init(converter: PassthroughConverter(), slots: 1)]
        )
        var backlog: [Job] = []
        for _ in 0..<70 { backlog.append(try await engine.submit()) }
        let book = try await engine.engine.create(owner: "alice", spec: JobSpec(type: .ebookToPDF, originalFilename: "book.epub"))
        try await engine.engine.receiveInput(Fixtures.pdf("one-page.pdf"), for: book, copying: true)
        _ = try await engine.engine.submit(book.id)

        let runner = Task { await engine.engine.run() }
        defer { runner.cancel() }
        try await eventually("the ebook job ends", within: .seconds(10)) {
            try await engine.engine.job(book.id)?.state.status.isTerminal == true
        }
        #expect(try await engine.engine.job(book.id)?.state.status == .succeeded, "the ebook job waited behind another backend's backlog")
        #expect(hang.calls == 1)

        engine.clock.advance(by: 21)
        let queued = Array(backlog.dropFirst().map(\.id))
        let waiting = try await until("no job of the backlog is still queued", within: .seconds(10)) {
            let jobs = await engine.engine.current(queued)
            return jobs.contains { $0.state.status == .queued } ? nil : jobs
        }
        #expect(waiting.count == queued.count, "every queued job reads back")
        #expect(
            waiting.allSatisfy { $0.state.status == .failed && $0.state.failure?.code == "timed_out" },
            "queued jobs past their deadline were left waiting for a slot"
        )
    }

    @Test func aStartSweepsWhatADeadProcessLeftInStaging() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let staging = engine.fixture.library.paths.staging
        let finished = try await engine.submit()
        _ = try await engine.runUntilDone(finished.id)
        let waiting = try await engine.engine.create(owner: "alice", spec: JobSpec(type: .docToPDF, originalFilename: "a.docx"))
        try await engine.engine.receiveInput(Fixtures.pdf("one-page.pdf"), for: waiting, copying: true)
        // Left by a process killed after the terminal write, by one killed mid-upload, and a
        // directory no job owns.
        let incoming = (engine.engine.staging.incomingPath() as NSString).lastPathComponent
        let leftovers = [finished.id.lowercased + "/input", incoming, UUID().lowercased + "/attempt-1"]
        for leftover in leftovers {
            let path = staging + "/" + leftover
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            let entry = staging + "/" + leftover.prefix { $0 != "/" }
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: entry)
        }
        // The unfinished job's directory is as old: it stays because its job is unfinished.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)],
            ofItemAtPath: staging + "/" + waiting.id.lowercased
        )
        let restarted = engine.restarted()
        let runner = Task { await restarted.run() }
        defer { runner.cancel() }
        var left: [String] = []
        try await eventually("only the unfinished job's upload stays: \(left)", within: .seconds(10)) {
            left = try FileManager.default.contentsOfDirectory(atPath: staging)
            return left == [waiting.id.lowercased]
        }
        runner.cancel()
        await runner.value
        #expect(left == [waiting.id.lowercased], "only the unfinished job's upload stays: \(left)")
        #expect(FileManager.default.fileExists(atPath: engine.engine.staging.inputPath(for: waiting)))
    }

    @Test func rejectionsFailAtOnceAndFileNothing() async throws {
        let converter = ScriptedConverter([.fail(JobFailure(.rejected, code: "password_protected", "the document is password-protected"))])
        let engine = try await EngineFixture(converter)
        let done = try await engine.runUntilDone(try engine.submit().id)
        #expect(done.state.status == .failed && done.state.failure?.code == "password_protected" && converter.calls == 1)
        await #expect(try engine.documents().isEmpty)
    }

    @Test func garbageOutputFailsAndFilesNothing() async throws {
        let converter = ScriptedConverter([.output(Array("<html>oops</html>".utf8))])
        let engine = try await EngineFixture(converter, maxAttempts: 1)
        let done = try await engine.runUntilDone(try engine.submit().id)
        #expect(done.state.status == .failed && done.state.failure?.code == "invalid_output")
        await #expect(try engine.documents().isEmpty)
        let report = try await engine.fixture.library.fsck(repair: false, inspector: engine.fixture.inspector)
        #expect(report.issues.isEmpty)
    }

    @Test func aHungConverterIsStoppedAtTheDeadline() async throws {
        let engine = try await EngineFixture(ScriptedConverter([.hang]), timeout: .seconds(1))
        let start = ContinuousClock.now
        let done = try await engine.runUntilDone(try engine.submit().id)
        #expect(done.state.status == .failed && done.state.failure?.code == "timed_out")
        #expect(ContinuousClock.now - start < .seconds(10), "the 1 s deadline plus slack for a loaded machine, never a hang")
        await #expect(try engine.documents().isEmpty)
    }

    @Test func cancellingARunningJobStopsIt() async throws {
        let engine = try await EngineFixture(ScriptedConverter([.hang]))
        let job = try await engine.submit()
        let runner = Task { await engine.engine.run() }
        defer { runner.cancel() }
        _ = try await engine.wait(for: job.id) { $0.state.status == .processing }
        let cancelled = try await engine.engine.cancel(job.id)
        #expect(cancelled.state.status == .cancelled)
        try await keepsHolding("the stopped attempt leaves the job cancelled", for: .milliseconds(200)) {
            try await engine.engine.job(job.id)?.state.status == .cancelled
        }
        await #expect(try engine.documents().isEmpty)
    }

    @Test func aCancelThatLandsDuringFilingLeavesNoDocument() async throws {
        let cancelling = CancelAfterFiling()
        let engine = try await EngineFixture(
            PassthroughConverter(),
            filer: { library in
                cancelling.library = library
                return cancelling
            }
        )
        cancelling.engine = engine.engine
        let job = try await engine.submit()
        cancelling.jobID = job.id
        let done = try await engine.runUntilDone(job.id)
        #expect(cancelling.filed == 1, "the real library filed the document before the cancel")
        #expect(done.state.status == .cancelled && done.state.documentID == nil)
        try await eventually("the cancel takes the filed document back") { try await engine.documents().isEmpty }
        let report = try await engine.fixture.library.fsck(repair: false, inspector: engine.fixture.inspector)
        #expect(report.issues.isEmpty)
    }

    @Test func cancellingAJobWhoseDocumentACrashLeftFiledTakesItBack() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let job = try await engine.submit()
        // What an attempt that filed and then died before marking success leaves behind.
        let copy = engine.engine.staging.incomingPath()
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: copy)
        let info = try await engine.fixture.inspector.inspect(path: copy)
        _ = try await engine.fixture.library.fileConverted(
            copy,
            id: Job.documentID(for: job.id),
            owner: "alice",
            folder: "Converted",
            name: "Crashed",
            conflict: .fail,
            info: info
        )
        await #expect(try engine.documents().count == 1)
        #expect(try await engine.engine.cancel(job.id).state.status == .cancelled)
        try await eventually("the cancel takes the crash's document back") { try await engine.documents().isEmpty }
    }

    @Test func aJobInterruptedByShutdownResumesAndFilesOnce() async throws {
        let fixture = try await EngineFixture(ScriptedConverter([.hang]))
        let job = try await fixture.submit()
        let runner = Task { await fixture.engine.run() }
        _ = try await fixture.wait(for: job.id) { $0.state.status == .processing }
        runner.cancel()
        await runner.value
        #expect(try await fixture.engine.job(job.id)?.state.status == .processing, "shutdown leaves it to resume")

        let restarted = fixture.restarted(with: PassthroughConverter())
        let second = Task { await restarted.run() }
        defer { second.cancel() }
        let status = try await fixture.wait(for: job.id, on: restarted) { $0.state.status.isTerminal }.state.status
        #expect(status == .succeeded)
        await #expect(try fixture.documents().count == 1)
    }

    @Test func submitBeforeUploadIsRefusedWithAReason() async throws {
        let engine = try await EngineFixture(PassthroughConverter())
        let job = try await engine.engine.create(owner: "alice", spec: JobSpec(type: .docToPDF, originalFilename: "a.docx"))
        #expect(job.state.status == .created)
        do {
            try await engine.engine.submit(job.id)
            Issue.record("submit before upload must fail")
        } catch let error as JobTransitionError {
            #expect(error.message.contains("upload"))
        }
    }
}
