import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@Suite("Job state machine")
struct JobStateMachineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var random = SeededRandom(seed: 3)

    func job(upload: Bool = true, attempts: Int = 3, deadlineIn seconds: Double = 120) -> JobStateMachine {
        JobStateMachine(needsUpload: upload, deadline: now.addingTimeInterval(seconds), maxAttempts: attempts)
    }

    @Test mutating func fileJobHappyPath() throws {
        var job = job()
        #expect(job.status == .created)
        #expect(throws: JobTransitionError.self) { try job.handle(.submitted, now: now, random: &random) }
        #expect(try job.handle(.uploaded, now: now, random: &random) == [.publish])
        #expect(try job.handle(.submitted, now: now, random: &random) == [.enqueue(notBefore: nil), .publish])
        #expect(try job.handle(.submitted, now: now, random: &random) == [], "a repeated submit is harmless")
        _ = try job.handle(.started, now: now, random: &random)
        #expect(job.status == .processing && job.phase == .converting && job.attempts == 1)
        #expect(try job.handle(.entered(.inspecting), now: now, random: &random) == [.publish])
        let id = UUID()
        #expect(try job.handle(.filed(id), now: now, random: &random) == [.cleanUpStaging, .publish])
        #expect(job.status == .succeeded && job.documentID == id && job.phase == nil)
        #expect(throws: JobTransitionError.self) { try job.handle(.started, now: now, random: &random) }
    }

    @Test mutating func aFileJobsTimeoutStartsAtSubmitNotAtCreation() throws {
        // 20 minutes to upload and submit; then 120 s to convert, counted from the submit.
        var job = JobStateMachine(uploadBy: now.addingTimeInterval(1200), thenTimeout: 120, maxAttempts: 3)
        let slowUpload = now.addingTimeInterval(600)  // a phone on a big file: 10 minutes
        #expect(try job.handle(.uploaded, now: slowUpload, random: &random) == [.publish])
        #expect(try job.handle(.submitted, now: slowUpload, random: &random) == [.enqueue(notBefore: nil), .publish])
        #expect(job.deadline == slowUpload.addingTimeInterval(120))
        _ = try job.handle(.started, now: slowUpload.addingTimeInterval(1), random: &random)
        #expect(job.status == .processing)
    }

    @Test mutating func aFileJobNeverUploadedExpiresAtTheEndOfItsWindow() throws {
        var job = JobStateMachine(uploadBy: now.addingTimeInterval(1200), thenTimeout: 120, maxAttempts: 3)
        #expect(throws: JobTransitionError.self, "before the window closes, the sweep changes nothing") {
            try job.handle(.deadlinePassed, now: now.addingTimeInterval(1199), random: &random)
        }
        let actions = try job.handle(.deadlinePassed, now: now.addingTimeInterval(1200), random: &random)
        #expect(actions == [.cleanUpStaging, .discardDocument, .publish])
        #expect(job.status == .failed && job.failure?.code == "upload_expired" && job.failure?.kind == .timedOut)
        #expect(job.failure?.message.contains("nothing was uploaded") == true)

        var uploadedOnly = JobStateMachine(uploadBy: now.addingTimeInterval(1200), thenTimeout: 120)
        _ = try uploadedOnly.handle(.uploaded, now: now, random: &random)
        _ = try uploadedOnly.handle(.deadlinePassed, now: now.addingTimeInterval(1300), random: &random)
        #expect(uploadedOnly.failure?.message.contains("not submitted") == true)
    }

    @Test mutating func urlJobsAreQueuedAtOnce() {
        let job = job(upload: false)
        #expect(job.status == .queued && job.inputReady)
    }

    @Test mutating func transientFailuresRetryWithBackoffThenFail() throws {
        var job = job(upload: false, attempts: 3)
        let busy = JobFailure(.transient, code: "converter_error", "Gotenberg answered 500", retryAfter: .seconds(2))
        _ = try job.handle(.started, now: now, random: &random)
        let retry = try job.handle(.failed(busy), now: now, random: &random)
        #expect(job.status == .queued && job.failure == busy)
        guard case .enqueue(let notBefore?) = retry.first else {
            Issue.record("expected a delayed enqueue")
            return
        }
        #expect(notBefore >= now.addingTimeInterval(2), "Retry-After is honored")
        _ = try job.handle(.started, now: notBefore, random: &random)
        _ = try job.handle(.failed(busy), now: notBefore, random: &random)
        _ = try job.handle(.started, now: notBefore.addingTimeInterval(5), random: &random)
        #expect(job.attempts == 3)
        _ = try job.handle(.failed(busy), now: notBefore.addingTimeInterval(5), random: &random)
        #expect(job.status == .failed && job.failure?.code == "converter_error")
    }

    @Test mutating func aBackendThatIsDownIsWaitedForUntilTheDeadline() throws {
        var job = job(upload: false, attempts: 3, deadlineIn: 600)
        let down = JobFailure.converterUnreachable("Gotenberg could not be reached: connection refused")
        var clock = now
        // Far more failures than maxAttempts: each one waits and retries while time remains.
        for _ in 0..<10 {
            _ = try job.handle(.started, now: clock, random: &random)
            let actions = try job.handle(.failed(down), now: clock, random: &random)
            #expect(job.status == .queued, "still waiting for the backend after \(job.attempts) attempts")
            guard case .enqueue(let notBefore?) = actions.first else {
                Issue.record("expected a delayed enqueue")
                return
            }
            clock = notBefore
        }
        #expect(job.attempts == 10)
        // Past the deadline, the job times out and says why it was waiting.
        _ = try job.handle(.started, now: now.addingTimeInterval(599.9), random: &random)
        _ = try job.handle(.failed(down), now: now.addingTimeInterval(599.95), random: &random)
        #expect(job.status == .failed && job.failure?.kind == .timedOut)
        #expect(job.failure?.message.contains("connection refused") == true)
    }

    @Test mutating func rejectionsFailAtOnce() throws {
        var job = job(upload: false)
        _ = try job.handle(.started, now: now, random: &random)
        let bad = JobFailure(.rejected, code: "conversion_rejected", "the document is password-protected")
        #expect(try job.handle(.failed(bad), now: now, random: &random) == [.cleanUpStaging, .discardDocument, .publish])
        #expect(job.status == .failed && job.failure == bad && job.attempts == 1)
    }

    @Test mutating func aRetryThatCannotStartBeforeTheDeadlineFailsAsTimedOut() throws {
        var job = job(upload: false, deadlineIn: 1)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.failed(JobFailure.converterUnavailable("503", retryAfter: .seconds(30))), now: now, random: &random)
        #expect(job.status == .failed && job.failure?.kind == .timedOut)
        #expect(job.failure?.message.contains("503") == true)
    }

    @Test mutating func pastTheDeadlineAnyEventFailsTheJobAndCancelsTheRemoteOne() throws {
        var job = job(upload: false, deadlineIn: 10)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.remoteCreated("r-1"), now: now, random: &random)
        let actions = try job.handle(.entered(.polling), now: now.addingTimeInterval(11), random: &random)
        #expect(actions == [.stopWork, .cancelRemote("r-1"), .cleanUpStaging, .discardDocument, .publish])
        #expect(job.status == .failed && job.failure?.code == "timed_out")
    }

    @Test mutating func cancelStopsWorkAndIsIdempotent() throws {
        var job = job(upload: false)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.remoteCreated("r-9"), now: now, random: &random)
        #expect(
            try job.handle(.cancelRequested, now: now, random: &random) == [
                .stopWork, .cancelRemote("r-9"), .cleanUpStaging, .discardDocument, .publish,
            ]
        )
        #expect(job.status == .cancelled)
        #expect(try job.handle(.cancelRequested, now: now, random: &random) == [])
    }

    @Test mutating func restartResumesPollingWithoutANewAttempt() throws {
        var job = job(upload: false)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.remoteCreated("r-2"), now: now, random: &random)
        #expect(try job.handle(.resumedAfterRestart, now: now, random: &random) == [.enqueue(notBefore: nil), .publish])
        _ = try job.handle(.started, now: now, random: &random)
        #expect(job.phase == .polling && job.attempts == 1 && job.remoteID == "r-2")
    }

    @Test mutating func retriesOfAJobWithARemoteIDStillCountAttempts() throws {
        // A peer that keeps failing the same remote job (a download that is never a PDF, say)
        // must not be retried until the deadline: the id stays, but each retry is an attempt.
        var job = job(upload: false, attempts: 3, deadlineIn: 600)
        let garbage = JobFailure(.transient, code: "invalid_output", "the peer's download was not a PDF")
        var later = now
        for attempt in 1...3 {
            _ = try job.handle(.started, now: later, random: &random)
            if attempt == 1 { _ = try job.handle(.remoteCreated("r-4"), now: later, random: &random) }
            #expect(job.attempts == attempt)
            _ = try job.handle(.failed(garbage), now: later, random: &random)
            later = job.notBefore ?? later
        }
        #expect(job.status == .failed && job.failure == garbage && job.attempts == 3)
    }

    @Test mutating func aRestartDuringARetriedRemoteJobResumesWithoutCountingIt() throws {
        var job = job(upload: false)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.remoteCreated("r-5"), now: now, random: &random)
        _ = try job.handle(.failed(JobFailure(.transient, code: "converter_error", "500")), now: now, random: &random)
        _ = try job.handle(.started, now: job.notBefore ?? now, random: &random)
        #expect(job.attempts == 2)
        _ = try job.handle(.resumedAfterRestart, now: now, random: &random)
        _ = try job.handle(.started, now: now, random: &random)
        #expect(job.attempts == 2 && job.phase == .polling)
        _ = try job.handle(.failed(JobFailure(.transient, code: "converter_error", "500")), now: now, random: &random)
        _ = try job.handle(.started, now: job.notBefore ?? now, random: &random)
        #expect(job.attempts == 3, "the start after a failure is an attempt again")
    }

    @Test(arguments: [
        ("a.epub", JobType.ebookToPDF), ("b.MOBI", .ebookToPDF), ("c.azw3", .ebookToPDF), ("d.docx", .docToPDF), ("e.html", .docToPDF),
        ("noext", .docToPDF), ("f.pdf", .pdfToPDF), ("photo.JPG", .scanToPDF), ("scan.tiff", .scanToPDF), ("g.heic", .scanToPDF),
        ("drawing.svg", .docToPDF),
    ])
    func typeFromFilename(_ name: String, _ type: JobType) {
        #expect(JobType.forFilename(name) == type)
    }

    @Test func aDocumentIdLeadsBackToItsJob() {
        for _ in 0..<100 {
            let job = UUID()
            let document = Job.documentID(for: job)
            #expect(document != job && Job.jobID(forDocument: document) == job)
        }
    }

    @Test mutating func stateSurvivesACodableRoundTrip() throws {
        var job = job(upload: false)
        _ = try job.handle(.started, now: now, random: &random)
        _ = try job.handle(.remoteCreated("r-3"), now: now, random: &random)
        let copy = try JSONDecoder().decode(JobStateMachine.self, from: JSONEncoder().encode(job))
        #expect(copy == job)
    }

    @Test mutating func aSecondUploadIsRefusedByTheStateMachine() throws {
        var job = job()
        _ = try job.handle(.uploaded, now: now, random: &random)
        #expect(
            throws: JobTransitionError(event: .uploaded, status: .created, reason: "the file has already been uploaded; an upload URL works once")
        ) {
            try job.handle(.uploaded, now: now, random: &random)
        }
        #expect(job.stage == .created(uploaded: true), "the refusal changed nothing")
    }

    @Test func rowsWrittenBeforeTheStagesReadBackAsTheyWere() throws {
        // The flat `state` JSON of the first release: a retry waiting, its failure kept.
        let stored = #"""
            {"status":"QUEUED","attempts":1,"maxAttempts":3,"deadline":800000120,"inputReady":true,"notBefore":800000010,
             "failure":{"kind":"transient","code":"converter_crashed","message":"LibreOffice crashed"},"remoteID":"r-1","resumesRemotePoll":true}
            """#
        let job = try JSONDecoder().decode(JobStateMachine.self, from: Data(stored.utf8))
        let failure = JobFailure(.transient, code: "converter_crashed", "LibreOffice crashed")
        let waiting = JobStateMachine.Queued(notBefore: Date(timeIntervalSinceReferenceDate: 800_000_010), retrying: failure, resumesRemotePoll: true)
        #expect(job.stage == .queued(waiting))
        #expect(job.attempts == 1 && job.remoteID == "r-1" && job.failure == failure && job.inputReady)
        // And what this release writes, an older one reads: the same flat fields.
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(job)) as? [String: Any] ?? [:]
        #expect(written["status"] as? String == "QUEUED" && written["inputReady"] as? Bool == true)
        #expect(written["resumesRemotePoll"] as? Bool == true && (written["failure"] as? [String: Any])?["code"] as? String == "converter_crashed")
        #expect(try JSONDecoder().decode(JobStateMachine.self, from: JSONEncoder().encode(job)) == job)
    }
}
