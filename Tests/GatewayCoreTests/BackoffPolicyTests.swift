import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@Suite("Backoff policy")
struct BackoffPolicyTests {
    let policy = BackoffPolicy(initial: .seconds(1), multiplier: 2, maximum: .seconds(10), jitter: 0.5)

    @Test func growsExponentiallyWithinItsJitterBandAndCaps() {
        var random = SeededRandom(seed: 7)
        for attempt in 1...8 {
            let base = min(pow(2.0, Double(attempt - 1)), 10)
            let wait = policy.delay(afterAttempt: attempt, using: &random)!
            #expect(wait >= .seconds(base * 0.5) && wait <= .seconds(base), "attempt \(attempt): \(wait)")
        }
    }

    @Test func isDeterministicForASeed() {
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        let first = (1...5).map { policy.delay(afterAttempt: $0, using: &a) }
        let second = (1...5).map { policy.delay(afterAttempt: $0, using: &b) }
        #expect(first == second)
    }

    @Test func honorsRetryAfterButNeverThePastDeadline() {
        var random = SeededRandom(seed: 1)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(20), using: &random) == .seconds(20))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(20), remaining: .seconds(15), using: &random) == nil)
        #expect(policy.delay(afterAttempt: 4, remaining: .milliseconds(100), using: &random) == nil)
    }

    @Test(arguments: [
        ("120", 120.0), ("0", 0.0), ("Sun, 22 Nov 2026 04:00:30 GMT", 30.0), ("Sunday, 22-Nov-26 04:01:00 GMT", 60.0),
        ("Sun Nov 22 04:00:10 2026", 10.0), ("Sun, 22 Nov 2026 03:00:00 GMT", 0.0),
    ])
    func parsesRetryAfter(_ header: String, _ expected: Double) throws {
        let now = try Date("2026-11-22T04:00:00Z", strategy: .iso8601)
        #expect(RetryAfter.parse(header, now: now) == .seconds(expected))
    }

    @Test(arguments: ["soon", "-5", ""])
    func rejectsNonsense(_ header: String) {
        #expect(RetryAfter.parse(header, now: Date()) == nil)
    }
}
