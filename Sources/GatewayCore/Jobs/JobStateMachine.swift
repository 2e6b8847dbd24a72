import Foundation

/// The lifecycle of one job as a pure value: events in, actions out (DESIGN §2).
///
/// It owns every rule about statuses — what may follow what, when a failure is retried, when
/// the deadline wins — so the runner, the store and the API only carry out its actions.
public struct JobStateMachine: Sendable, Equatable, Codable {
    public private(set) var status: JobStatus
    public private(set) var phase: JobPhase?
    /// Conversion attempts started so far.
    public private(set) var attempts: Int
    public let maxAttempts: Int
    /// When the job fails as timed out. For a file job this first bounds the upload (the upload
    /// window); submitting starts the conversion's own time, `timeout`, from then.
    public private(set) var deadline: Date
    /// The conversion's time budget, applied from the submit of a file job; nil for jobs whose
    /// deadline was fixed at creation (URL jobs, and jobs stored before this existed).
    public private(set) var timeout: TimeInterval?
    /// True once the input file is staged (file jobs) — URL jobs need none.
    public private(set) var inputReady: Bool
    /// The remote converter's job id, kept so a restart resumes polling instead of re-uploading.
    public private(set) var remoteID: String?
    /// True from a restart that found the job polling its remote job until the next start: that
    /// start resumes the poll and is not a new attempt. Every other start is one, remote id or
    /// not, so a peer that keeps failing cannot retry a job past `maxAttempts`. (Optional: states
    /// stored before it existed decode as nil.)
    private var resumesRemotePoll: Bool?
    /// A retry must not start before this.
    public private(set) var notBefore: Date?
    public private(set) var failure: JobFailure?
    public private(set) var documentID: UUID?

    /// A new job: URL jobs are queued at once, file jobs wait for their upload.
    public init(needsUpload: Bool, deadline: Date, maxAttempts: Int = 3) {
        status = needsUpload ? .created : .queued
        inputReady = !needsUpload
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
        case failed(JobFailure)
        /// The PDF is in the library.
        case filed(UUID)
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
    /// in the current status (say, a second submit), changing nothing.
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
            if case .filed = event {} else { return fail(deadlineFailure) }
        }
        switch (event, status) {
        case (.uploaded, .created):
            guard !inputReady else {
                throw JobTransitionError(event: event, status: status, reason: "the file has already been uploaded; an upload URL works once")
            }
            inputReady = true
            return [.publish]
        case (.submitted, .created):
            guard inputReady else {
                throw JobTransitionError(event: event, status: status, reason: "upload the file to the job's upload URL before submitting")
            }
            status = .queued
            if let timeout { deadline = now.addingTimeInterval(timeout) }
            return [.enqueue(notBefore: nil), .publish]
        case (.submitted, .queued), (.submitted, .processing):
            return []  // a repeated submit is harmless: the job is already on its way
        case (.started, .queued):
            status = .processing
            phase = remoteID == nil ? .converting : .polling
            attempts += resumesRemotePoll == true ? 0 : 1
            resumesRemotePoll = nil
            notBefore = nil
            return [.publish]
        case (.entered(let next), .processing):
            guard next != phase else { return [] }
            phase = next
            return [.publish]
        case (.remoteCreated(let id), .processing):
            remoteID = id
            return []
        case (.failed(let error), .processing):
            return retryOrFail(error, now: now, backoff: backoff, random: &random)
        case (.filed(let id), .processing):
            documentID = id
            status = .succeeded
            phase = nil
            return [.cleanUpStaging, .publish]
        case (.cancelRequested, _):
            let wasRunning = status == .processing
            status = .cancelled
            phase = nil
            failure = JobFailure(.rejected, code: "cancelled", "the job was cancelled")
            return (wasRunning ? [.stopWork] : []) + (remoteID.map { [.cancelRemote($0)] } ?? []) + [.cleanUpStaging, .discardDocument, .publish]
        case (.resumedAfterRestart, .processing):
            status = .queued
            phase = nil
            resumesRemotePoll = remoteID != nil ? true : nil
            return [.enqueue(notBefore: nil), .publish]
        case (.resumedAfterRestart, .queued):
            return [.enqueue(notBefore: notBefore)]
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
        // its deadline instead of spending its attempts (issue 3: "wait and retry, not fail").
        guard error.kind == .unavailable || (error.kind == .transient && attempts < maxAttempts) else { return fail(error) }
        let remaining = Duration.milliseconds(Int64(deadline.timeIntervalSince(now) * 1000))
        guard let wait = backoff.delay(afterAttempt: attempts, retryAfter: error.retryAfter, remaining: remaining, using: &random) else {
            return fail(JobFailure(.timedOut, code: "timed_out", timeoutMessage + "; the last attempt failed: \(error.message)"))
        }
        status = .queued
        phase = nil
        failure = error  // kept visible while waiting, so a poll can say why it is retrying
        let seconds = wait.inSeconds
        notBefore = now.addingTimeInterval(seconds)
        return [.enqueue(notBefore: notBefore), .publish]
    }

    private mutating func fail(_ error: JobFailure) -> [Action] {
        let wasRunning = status == .processing
        status = .failed
        phase = nil
        failure = error
        let cancelRemote: [Action] = error.kind == .timedOut ? (remoteID.map { [.cancelRemote($0)] } ?? []) : []
        return (wasRunning && error.kind == .timedOut ? [.stopWork] : []) + cancelRemote + [.cleanUpStaging, .discardDocument, .publish]
    }

    private var timeoutMessage: String { "the job did not finish before its deadline" }

    /// What passing the deadline means in the job's status: a file job still waiting for its
    /// upload expired; anything else ran out of time.
    private var deadlineFailure: JobFailure {
        guard status == .created else { return JobFailure(.timedOut, code: "timed_out", timeoutMessage) }
        let what =
            inputReady
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
