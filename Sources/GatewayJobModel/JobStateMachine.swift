import Foundation
import GatewayCore

/// The lifecycle of one job as a pure value: events in, actions out (DESIGN §2).
///
/// It owns every rule about statuses — what may follow what, when a failure is retried, when
/// the deadline wins, that an input is received once — so the runner, the store and the API
/// only carry out its actions. Where the job is lives in `stage`, an enum whose cases carry only
/// their own data (a retry's wait exists only while queued, a document id only once succeeded);
/// what every stage shares — attempts, the deadline, the remote job's id — sits beside it.
public struct JobStateMachine: Sendable, Equatable {
    /// Where the job is, with what only that stage knows.
    public enum Stage: Sendable, Equatable {
        /// Waiting for its file and the client's submit (file jobs).
        case created(uploaded: Bool)
        case queued(Queued)
        case processing(JobPhase)
        /// With the id of the document it filed; nil for a job whose result is no PDF for the
        /// library (a screenshot), kept beside the job instead.
        case succeeded(documentID: UUID?)
        case failed(JobFailure)
        case cancelled
    }

    /// A job waiting for a slot.
    public struct Queued: Sendable, Equatable {
        /// A retry must not start before this.
        public var notBefore: Date?
        /// The failure being retried, kept so a poll can say why the job waits.
        public var retrying: JobFailure?
        /// True from a restart that found the job polling its remote job until the next start:
        /// that start resumes the poll and is not a new attempt. Every other start is one, remote
        /// id or not, so a peer that keeps failing cannot retry a job past `maxAttempts`.
        public var resumesRemotePoll: Bool

        public init(notBefore: Date? = nil, retrying: JobFailure? = nil, resumesRemotePoll: Bool = false) {
            self.notBefore = notBefore
            self.retrying = retrying
            self.resumesRemotePoll = resumesRemotePoll
        }
    }

    public private(set) var stage: Stage
    /// Conversion attempts started so far.
    public private(set) var attempts: Int
    public let maxAttempts: Int
    /// When the job fails as timed out. For a file job this first bounds the upload (the upload
    /// window); submitting starts the conversion's own time, `timeout`, from then.
    public private(set) var deadline: Date
    /// The conversion's time budget, applied from the submit of a file job; nil for jobs whose
    /// deadline was fixed at creation (URL jobs, and stored jobs that have none).
    public private(set) var timeout: TimeInterval?
    /// The remote converter's job id, kept so a restart resumes polling instead of re-uploading.
    public private(set) var remoteID: String?
    /// How many documents the job filed: more than one after a split, whose ids follow from the
    /// first (`Job.documentID(for:part:)`).
    public private(set) var parts: Int = 1
    /// What the result does not show of the original (a substituted font…), each once, in the
    /// order the converter said them.
    public private(set) var warnings: [String] = []

    /// A new job: URL jobs are queued at once, file jobs wait for their upload.
    public init(needsUpload: Bool, deadline: Date, maxAttempts: Int = 3) {
        stage = needsUpload ? .created(uploaded: false) : .queued(Queued())
        self.deadline = deadline
        self.maxAttempts = max(1, maxAttempts)
        attempts = 0
    }

    /// A file job: until `uploadDeadline` to upload and submit (a slow phone on a big file must
    /// not eat the conversion's time), then `timeout` from the submit.
    public init(uploadBy uploadDeadline: Date, thenTimeout timeout: TimeInterval, maxAttempts: Int = 3) {
        self.init(needsUpload: true, deadline: uploadDeadline, maxAttempts: maxAttempts)
        self.timeout = timeout
    }

    // MARK: - What the stage says

    public var status: JobStatus {
        switch stage {
        case .created: .created
        case .queued: .queued
        case .processing: .processing
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    public var phase: JobPhase? {
        guard case .processing(let phase) = stage else { return nil }
        return phase
    }

    /// True once the input file is staged (file jobs); URL jobs need none.
    public var inputReady: Bool {
        guard case .created(let uploaded) = stage else { return true }
        return uploaded
    }

    public var notBefore: Date? {
        guard case .queued(let queued) = stage else { return nil }
        return queued.notBefore
    }

    /// Why the job failed or was cancelled, or the failure a queued retry waits on.
    public var failure: JobFailure? {
        switch stage {
        case .failed(let failure): failure
        case .cancelled: Self.cancelledFailure
        case .queued(let queued): queued.retrying
        default: nil
        }
    }

    public var documentID: UUID? {
        guard case .succeeded(let id) = stage else { return nil }
        return id
    }

    // MARK: - Events and actions

    public enum Event: Sendable, Equatable {
        /// The input file is fully staged.
        case uploaded
        /// The client asked to start (mobile protocol: after the upload).
        case submitted
        /// The engine's sweep: the deadline has passed without any other event to notice it.
        case deadlinePassed
        /// A runner slot took the job.
        case started
        case entered(JobPhase)
        case remoteCreated(String)
        /// The converter's warnings about its result (`ConversionEvent.warned`).
        case warned([String])
        case failed(JobFailure)
        /// The PDF is in the library; `parts` documents when the job split it.
        case filed(UUID, parts: Int = 1)
        /// The result is kept beside the job (`DocumentFiler.keepResult`): an image, not a PDF.
        case produced
        case cancelRequested
        /// The process restarted while the job was in flight.
        case resumedAfterRestart
    }

    public enum Action: Sendable, Equatable {
        /// Hand the job to a runner slot, not before the date.
        case enqueue(notBefore: Date?)
        /// Stop the work in progress (cancel the task, kill the subprocess group).
        case stopWork
        case cancelRemote(String)
        /// Terminal: drop the staged input and outputs.
        case cleanUpStaging
        /// Terminal without success: remove the document this job may already have filed (a
        /// cancel that raced the filing step, or a crash between filing and success), so a job
        /// that did not succeed never leaves anything in the library.
        case discardDocument
        /// Tell listeners (events stream, webhook) about the new state.
        case publish
    }

    /// Applies `event` at `now`. Throws `JobTransitionError` for an event that makes no sense
    /// in the current stage (say, a second submit or a second upload), changing nothing.
    public mutating func handle(
        _ event: Event,
        now: Date,
        backoff: BackoffPolicy = BackoffPolicy(),
        random: inout some RandomNumberGenerator
    ) throws(JobTransitionError) -> [Action] {
        if status.isTerminal {
            if case .cancelRequested = event { return [] }  // cancelling a finished job is a no-op
            throw JobTransitionError(event: event, status: status)
        }
        if now >= deadline, event != .cancelRequested {
            // What was finished in time is not failed for the moments it took to store.
            switch event {
            case .filed, .produced: break
            default: return fail(deadlineFailure)
            }
        }
        switch (event, stage) {
        case (.uploaded, .created(let uploaded)):
            guard !uploaded else {
                throw JobTransitionError(event: event, status: status, reason: "the file has already been uploaded; an upload URL works once")
            }
            stage = .created(uploaded: true)
            return [.publish]
        case (.submitted, .created(let uploaded)):
            guard uploaded else {
                throw JobTransitionError(event: event, status: status, reason: "upload the file to the job's upload URL before submitting")
            }
            stage = .queued(Queued())
            if let timeout { deadline = now.addingTimeInterval(timeout) }
            return [.enqueue(notBefore: nil), .publish]
        case (.submitted, .queued), (.submitted, .processing):
            return []  // a repeated submit is harmless: the job is already on its way
        case (.started, .queued(let queued)):
            stage = .processing(remoteID == nil ? .converting : .polling)
            attempts += queued.resumesRemotePoll ? 0 : 1
            return [.publish]
        case (.entered(let next), .processing(let phase)):
            guard next != phase else { return [] }
            stage = .processing(next)
            return [.publish]
        case (.remoteCreated(let id), .processing):
            remoteID = id
            return []
        case (.warned(let said), .processing):
            warnings += said.filter { !warnings.contains($0) }
            return []
        case (.failed(let error), .processing):
            return retryOrFail(error, now: now, backoff: backoff, random: &random)
        case (.filed(let id, let count), .processing):
            stage = .succeeded(documentID: id)
            parts = count
            return [.cleanUpStaging, .publish]
        case (.produced, .processing):
            stage = .succeeded(documentID: nil)
            return [.cleanUpStaging, .publish]
        case (.cancelRequested, let current):
            stage = .cancelled
            let stopWork: [Action] = if case .processing = current { [.stopWork] } else { [] }
            return stopWork + (remoteID.map { [.cancelRemote($0)] } ?? []) + [.cleanUpStaging, .discardDocument, .publish]
        case (.resumedAfterRestart, .processing):
            stage = .queued(Queued(resumesRemotePoll: remoteID != nil))
            return [.enqueue(notBefore: nil), .publish]
        case (.resumedAfterRestart, .queued(let queued)):
            return [.enqueue(notBefore: queued.notBefore)]
        default:
            throw JobTransitionError(event: event, status: status)
        }
    }

    private mutating func retryOrFail(
        _ error: JobFailure,
        now: Date,
        backoff: BackoffPolicy,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        // A backend that is down or full has not tried the input yet: the job waits for it until
        // its deadline instead of spending its attempts.
        guard error.kind == .unavailable || (error.kind == .transient && attempts < maxAttempts) else { return fail(error) }
        let remaining = Duration.milliseconds(Int64(deadline.timeIntervalSince(now) * 1000))
        guard let wait = backoff.delay(afterAttempt: attempts, retryAfter: error.retryAfter, remaining: remaining, using: &random) else {
            return fail(JobFailure(.timedOut, code: "timed_out", Self.timeoutMessage + "; the last attempt failed: \(error.message)"))
        }
        let notBefore = now.addingTimeInterval(wait.inSeconds)
        stage = .queued(Queued(notBefore: notBefore, retrying: error))
        return [.enqueue(notBefore: notBefore), .publish]
    }

    private mutating func fail(_ error: JobFailure) -> [Action] {
        let wasRunning = status == .processing
        stage = .failed(error)
        let cancelRemote: [Action] = error.kind == .timedOut ? (remoteID.map { [.cancelRemote($0)] } ?? []) : []
        return (wasRunning && error.kind == .timedOut ? [.stopWork] : []) + cancelRemote + [.cleanUpStaging, .discardDocument, .publish]
    }

    private static let timeoutMessage = "the job did not finish before its deadline"
    private static let cancelledFailure = JobFailure(.rejected, code: "cancelled", "the job was cancelled")

    /// What passing the deadline means in the job's stage: a file job still waiting for its
    /// upload expired; anything else ran out of time.
    private var deadlineFailure: JobFailure {
        guard case .created(let uploaded) = stage else { return JobFailure(.timedOut, code: "timed_out", Self.timeoutMessage) }
        let what =
            uploaded
            ? "the file was uploaded but the job was not submitted before its upload window closed"
            : "nothing was uploaded before the job's upload window closed"
        return JobFailure(.timedOut, code: "upload_expired", what + "; create the job again")
    }
}

/// An event that does not fit the job's status.
public struct JobTransitionError: GatewayError, Equatable {
    public var event: JobStateMachine.Event
    public var status: JobStatus
    public var reason: String?

    public init(event: JobStateMachine.Event, status: JobStatus, reason: String? = nil) {
        self.event = event
        self.status = status
        self.reason = reason
    }

    public var code: String { "invalid_job_state" }
    public var message: String {
        "cannot apply \(event) to a job that is \(status.rawValue)" + (reason.map { ": \($0)" } ?? "")
    }
}

/// The stored form: one flat record (the `state` column) that every release writes and reads,
/// so rows an older binary wrote read back unchanged, and rows this one writes read in an
/// older binary.
extension JobStateMachine: Codable {
    private struct Stored: Codable {
        var status: JobStatus
        var phase: JobPhase?
        var attempts: Int
        var maxAttempts: Int
        var deadline: Date
        var timeout: TimeInterval?
        var inputReady: Bool
        var remoteID: String?
        var resumesRemotePoll: Bool?
        var notBefore: Date?
        var failure: JobFailure?
        var documentID: UUID?
        var parts: Int?
        var warnings: [String]?
    }

    public init(from decoder: any Decoder) throws {
        let stored = try Stored(from: decoder)
        attempts = stored.attempts
        maxAttempts = stored.maxAttempts
        deadline = stored.deadline
        timeout = stored.timeout
        remoteID = stored.remoteID
        parts = stored.parts ?? 1
        warnings = stored.warnings ?? []
        switch stored.status {
        case .created: stage = .created(uploaded: stored.inputReady)
        case .queued:
            stage = .queued(
                Queued(notBefore: stored.notBefore, retrying: stored.failure, resumesRemotePoll: stored.resumesRemotePoll ?? false)
            )
        case .processing: stage = .processing(stored.phase ?? .converting)
        case .succeeded: stage = .succeeded(documentID: stored.documentID)
        case .failed:
            stage = .failed(stored.failure ?? JobFailure(.transient, code: "internal_error", "the job failed without a recorded reason"))
        case .cancelled: stage = .cancelled
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var resumesRemotePoll: Bool?
        if case .queued(let queued) = stage, queued.resumesRemotePoll { resumesRemotePoll = true }
        try Stored(
            status: status,
            phase: phase,
            attempts: attempts,
            maxAttempts: maxAttempts,
            deadline: deadline,
            timeout: timeout,
            inputReady: inputReady,
            remoteID: remoteID,
            resumesRemotePoll: resumesRemotePoll,
            notBefore: notBefore,
            failure: failure,
            documentID: documentID,
            parts: parts == 1 ? nil : parts,
            warnings: warnings.isEmpty ? nil : warnings
        ).encode(to: encoder)
    }
}
