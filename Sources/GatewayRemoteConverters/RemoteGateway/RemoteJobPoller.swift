import GatewayJobModel

/// How a remote job ended, as far as polling can tell.
enum RemoteJobEnd: Sendable, Equatable {
    case succeeded(downloadURL: String)
    case failed(RemoteJobAnswer)
    case cancelled
    /// The peer no longer knows the job (404/410).
    case gone
    /// Still CREATED: never uploaded or submitted, so it will never run.
    case neverSubmitted
}

/// Polls `GET /v1/jobs/{id}` until the job ends or the deadline passes, with waits from the
/// `RemotePollingPolicy`. Network trouble and an overloaded peer do not end the wait: within the
/// deadline the next poll may well succeed, and the job itself is probably fine.
struct RemoteJobPoller: Sendable {
    let api: RemoteGatewayAPI
    let policy: RemotePollingPolicy
    /// Sleep and jitter, injected so tests need not wait in real time.
    let clock: JobClock

    /// Waits for job `id` to end. `first` is an answer already in hand (create or submit); without
    /// one the first poll goes out at once.
    ///
    /// - Throws: a timed-out `JobFailure` at the deadline, `CancellationError`, or a failure no
    ///   further poll could fix (a 4xx other than 404, an unusable answer to a finished job).
    func waitForEnd(of id: String, first: RemoteJobAnswer?, deadline: RemoteDeadline) async throws -> RemoteJobEnd {
        let started = ContinuousClock.now
        var random = clock.makeRandom()
        var current = first
        var answers = first == nil ? 0 : 1
        // Polls that failed count toward the backoff too: a peer that is down is asked less and
        // less often, not every quarter second until the deadline.
        var failedPolls = 0
        var hint: Duration?
        var lastProblem: JobFailure?
        var streamsLeft = policy.streamEvents ? 3 : 0
        while true {
            if let current, let end = try Self.end(of: current, id: id) { return end }
            // A job on its way: wait on its event stream rather than polling, if the peer has one.
            if streamsLeft > 0, let status = current?.jobStatus, status == .queued || status == .processing {
                streamsLeft -= 1
                let began = ContinuousClock.now
                let answer = await api.watch(id, deadline: deadline)
                try Task.checkCancellation()
                if let answer, answer.jobStatus != nil {
                    current = answer
                    answers += 1
                    // A stream that ends at once without an end is not one: stop trying.
                    if try Self.end(of: answer, id: id) == nil && began.duration(to: .now) < .seconds(1) { streamsLeft = 0 }
                    continue
                }
                streamsLeft = 0
            }
            if answers > 0 || lastProblem != nil {
                let wait = policy.delay(
                    afterPoll: max(answers + failedPolls, 1),
                    elapsed: started.duration(to: .now),
                    hint: hint,
                    demanded: lastProblem?.retryAfter,
                    using: &random
                )
                try await clock.sleep(min(wait, deadline.remaining))
                try Task.checkCancellation()
            }
            if deadline.hasPassed { throw Self.timedOut(id, lastProblem: lastProblem) }
            switch try await api.status(id, deadline: deadline) {
            case .answer(let answer, let retryAfter):
                (current, hint, lastProblem) = (answer, retryAfter, nil)
                answers += 1
            case .gone:
                return .gone
            case .tryAgain(let problem):
                (current, hint, lastProblem) = (nil, nil, problem)
                failedPolls += 1
            }
        }
    }

    /// The end an answer describes, or nil while the job is still on its way (including a status
    /// this side does not know: a newer peer's intermediate state).
    static func end(of answer: RemoteJobAnswer, id: String) throws(JobFailure) -> RemoteJobEnd? {
        switch answer.jobStatus {
        case .succeeded:
            guard let url = answer.downloadURL, !url.isEmpty else {
                throw JobFailure(
                    .rejected,
                    code: "remote_protocol_error",
                    "\(RemoteGatewayAPI.service) reports job \(id) SUCCEEDED without a download_url"
                )
            }
            return .succeeded(downloadURL: url)
        case .failed: return .failed(answer)
        case .cancelled: return .cancelled
        case .created: return .neverSubmitted
        case .queued, .processing, nil: return nil
        }
    }

    private static func timedOut(_ id: String, lastProblem: JobFailure?) -> JobFailure {
        var failure = RemoteFailures.timedOut(service: RemoteGatewayAPI.service, doing: "job \(id)")
        if let lastProblem { failure.message += "; the last poll failed: \(lastProblem.message)" }
        return failure
    }
}
