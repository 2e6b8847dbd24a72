import Foundation

/// The one policy for every wait in the engine: converter retries, remote polling, webhook
/// redelivery. Exponential with full jitter inside a band, capped, honoring `Retry-After`,
/// never past the deadline. Deterministic given the random source, so tests never sleep.
public struct BackoffPolicy: Sendable, Equatable {
    /// The wait before the second attempt (before jitter).
    public var initial: Duration
    public var multiplier: Double
    /// No single wait is longer than this (a `Retry-After` may still ask for more, up to the deadline).
    public var maximum: Duration
    /// Fraction of each wait that is randomized: 0 = none, 0.5 = the wait is in [0.5 d, d].
    public var jitter: Double

    public init(initial: Duration = .milliseconds(500), multiplier: Double = 2, maximum: Duration = .seconds(30), jitter: Double = 0.5) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// How long to wait before attempt `attempt + 1`, after `attempt` attempts (≥ 1) failed.
    ///
    /// - Returns: nil when the next attempt could not start before `remaining` runs out.
    public func delay(
        afterAttempt attempt: Int,
        retryAfter: Duration? = nil,
        remaining: Duration? = nil,
        using random: inout some RandomNumberGenerator
    ) -> Duration? {
        let exponent = Double(max(attempt - 1, 0))
        let base = min(initial.inSeconds * pow(multiplier, exponent), maximum.inSeconds)
        let jittered = base * (1 - jitter) + base * jitter * Double.random(in: 0...1, using: &random)
        var wait = Duration.seconds(jittered)
        if let retryAfter, retryAfter > wait { wait = retryAfter }
        if let remaining, wait >= remaining { return nil }
        return wait
    }
}

/// Parses an HTTP `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
public enum RetryAfter {
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        // IMF-fixdate, then the two obsolete forms recipients must still accept.
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                let interval = date.timeIntervalSince(now)
                return .milliseconds(Int64(max(interval, 0) * 1000))
            }
        }
        return nil
    }
}
