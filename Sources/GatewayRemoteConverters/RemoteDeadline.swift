import GatewayJobModel

/// A job's deadline as the HTTP backends see it: how long the next exchange may take, and
/// whether a transfer that stopped on its timeout stopped because the job ran out of time.
struct RemoteDeadline: Sendable {
    let instant: ContinuousClock.Instant

    init(_ instant: ContinuousClock.Instant) { self.instant = instant }

    /// Time left, never negative.
    var remaining: Duration { max(.zero, ContinuousClock.now.duration(to: instant)) }

    /// libcurl rounds its timers to milliseconds and fires a little early or late, so a transfer
    /// that ends within this margin of the deadline counts as having reached it.
    static let slack: Duration = .milliseconds(50)

    var hasPassed: Bool { ContinuousClock.now >= instant - Self.slack }

    /// The limit for the next exchange: what is left of the job, optionally capped.
    ///
    /// - Throws: a timed-out `JobFailure` when nothing is left, so no request starts doomed.
    func timeout(cappedAt cap: Duration? = nil, service: String, doing what: String) throws(JobFailure) -> Duration {
        let left = remaining
        guard left > Self.slack else { throw RemoteFailures.timedOut(service: service, doing: what) }
        return cap.map { min($0, left) } ?? left
    }
}
