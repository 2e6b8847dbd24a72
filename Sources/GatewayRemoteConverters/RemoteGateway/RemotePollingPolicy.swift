import GatewayJobModel

/// When to ask a remote gateway again whether its job is done.
///
/// The waits come from the shared `BackoffPolicy` (short first polls growing to a cap) with one
/// more bound: no wait is longer than `detectionFraction` of the time spent polling so far, nor
/// shorter than `detectionFloor` because of that bound. A remote job that ends right after a poll
/// is therefore noticed within max(`detectionFloor`, `detectionFraction` × its run time), and long
/// jobs are asked ever more rarely: the waits grow geometrically until `backoff.maximum`.
public struct RemotePollingPolicy: Sendable, Equatable {
    /// The shape of the waits: first wait, growth, cap, jitter.
    public var backoff: BackoffPolicy
    /// A wait is at most this fraction of the time elapsed since polling began.
    public var detectionFraction: Double
    /// The bound above never goes below this: early polls need not be closer together.
    public var detectionFloor: Duration
    /// First ask the peer for the job's event stream (`GET /v1/jobs/{id}/events`, which PDF
    /// Gateway serves): one request that answers the moment the job ends. A peer without it
    /// (404, not `text/event-stream`) is polled instead.
    public var streamEvents: Bool

    /// The defaults: 250 ms, ×1.5, at most 5 s, 10 % jitter, and no wait over max(450 ms, 14 % of
    /// the elapsed time) — a little under the 500 ms / 15 % detection target, leaving room for the
    /// poll's own round trip.
    public init(
        backoff: BackoffPolicy = BackoffPolicy(initial: .milliseconds(250), multiplier: 1.5, maximum: .seconds(5), jitter: 0.1),
        detectionFraction: Double = 0.14,
        detectionFloor: Duration = .milliseconds(450),
        streamEvents: Bool = true
    ) {
        self.streamEvents = streamEvents
        self.backoff = backoff
        self.detectionFraction = max(0, detectionFraction)
        self.detectionFloor = detectionFloor
    }

    /// The wait after `polls` polls (≥ 1), `elapsed` into polling.
    ///
    /// - Parameters:
    ///   - hint: a `Retry-After` on a successful poll answer: honoured only up to the detection
    ///     bound, since a peer's generic hint must not make us notice its result late.
    ///   - demanded: a `Retry-After` on a 429/503 answer: the peer is overloaded, so it is honoured
    ///     in full (the caller still never sleeps past the job's deadline).
    public func delay(
        afterPoll polls: Int,
        elapsed: Duration,
        hint: Duration? = nil,
        demanded: Duration? = nil,
        using random: inout some RandomNumberGenerator
    ) -> Duration {
        var bounded = backoff
        bounded.maximum = min(backoff.maximum, max(detectionFloor, elapsed * detectionFraction))
        let retryAfter = [hint.map { min($0, bounded.maximum) }, demanded].compactMap { $0 }.max()
        return bounded.delay(afterAttempt: max(polls, 1), retryAfter: retryAfter, remaining: nil, using: &random) ?? bounded.maximum
    }
}
