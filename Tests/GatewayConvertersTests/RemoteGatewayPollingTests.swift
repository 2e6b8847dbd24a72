import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayRemoteConverters

/// The polling schedule: as a pure function, and as the converter applies it to a peer's
/// `Retry-After` (with an injected sleep that records instead of waiting).
@Suite(.timeLimit(.minutes(1))) struct RemoteGatewayPollingTests {
    /// The poll times a policy produces from 0 s (the submit) on, without jitter or round trips.
    static func schedule(_ policy: RemotePollingPolicy, until end: Double) -> [Double] {
        var random = SeededRandom(seed: 7)
        var times: [Double] = []
        var now = 0.0
        while now < end {
            now += policy.delay(afterPoll: times.count + 1, elapsed: .milliseconds(Int64(now * 1000)), using: &random).inSeconds
            times.append(now)
        }
        return times
    }

    /// However long the job runs, a job that ends just after a poll is seen within
    /// max(0.5 s, 15 % of its run time): each wait is bounded by what has elapsed before it.
    @Test func defaultScheduleMeetsTheDetectionBoundEverywhere() {
        var previous = 0.0
        for time in Self.schedule(RemotePollingPolicy(), until: 300) {
            #expect(time - previous <= max(0.5, 0.15 * previous), "wait of \(time - previous) s after \(previous) s")
            previous = time
        }
    }

    /// Fewer polls than fixed 1-s polling once jobs run long; rare polls for very long jobs.
    @Test(arguments: [(30.0, 30), (60.0, 60), (120.0, 120)])
    func defaultScheduleBeatsFixedPolling(_ duration: Double, _ fixedPolls: Int) {
        let polls = Self.schedule(RemotePollingPolicy(), until: duration).count
        #expect(polls < fixedPolls, "\(polls) polls for a \(duration) s job")
    }

    @Test func hintsAreCappedByTheDetectionBoundButDemandsAreNot() {
        var random = SeededRandom(seed: 1)
        let policy = RemotePollingPolicy(backoff: BackoffPolicy(initial: .milliseconds(250), multiplier: 1.5, maximum: .seconds(5), jitter: 0))
        #expect(policy.delay(afterPoll: 1, elapsed: .zero, using: &random) == .milliseconds(250))
        #expect(policy.delay(afterPoll: 3, elapsed: .seconds(1), using: &random) == .milliseconds(450))
        #expect(abs(policy.delay(afterPoll: 20, elapsed: .seconds(10), using: &random).inSeconds - 1.4) < 1e-9)
        #expect(policy.delay(afterPoll: 40, elapsed: .seconds(100), using: &random) == .seconds(5))
        #expect(policy.delay(afterPoll: 1, elapsed: .seconds(1), hint: .seconds(3), using: &random) == .milliseconds(450))
        #expect(policy.delay(afterPoll: 1, elapsed: .seconds(1), demanded: .seconds(3), using: &random) == .seconds(3))
    }

    /// Records each requested wait and sleeps a little instead.
    final class RecordingSleep: Sendable {
        let waits = Locked<[Duration]>([])
        var sleep: @Sendable (Duration) async throws -> Void {
            { [waits] duration in
                waits.update { $0.append(duration) }
                try await FakeDelay.suspend(for: min(duration, .milliseconds(5)))
            }
        }
    }

    func converter(_ fake: FakeRemoteGateway, _ sleeper: RecordingSleep, cancelOnCancel: Bool = true) -> RemoteGatewayConverter {
        RemoteGatewayConverter(
            configuration: .init(
                baseURL: fake.baseURL,
                polling: RemoteGatewayConverterTests.quickPolling,
                cancelTimeout: .seconds(1),
                cancelRemoteJobOnTaskCancellation: cancelOnCancel,
                http: httpTestTransport(),
                clock: JobClock(makeRandom: { SeededRandom(seed: 7) }, sleep: sleeper.sleep)
            )
        )
    }

    @Test func overloadedPollsWaitTheirRetryAfterAndThenGoOn() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.busyPolls = 2
        behaviour.busyRetryAfter = "2"
        behaviour.jobDuration = .zero
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let sleeper = RecordingSleep()
        let job = HTTPBackendJob()
        try await converter(fake, sleeper).convert(job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(5)), events: { _ in })
        #expect(fileBytes(job.output) == onePagePDF)
        #expect(sleeper.waits.value.filter { $0 == .seconds(2) }.count == 2, "\(sleeper.waits.value)")
    }

    @Test func pollsThatFailBackOffToo() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.busyPolls = 6
        behaviour.busyRetryAfter = ""  // a 503 that demands nothing: the backoff decides
        behaviour.jobDuration = .zero
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let sleeper = RecordingSleep()
        let job = HTTPBackendJob()
        try await converter(fake, sleeper).convert(job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(5)), events: { _ in })
        let waits = sleeper.waits.value
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 }, "waits never shrink while the peer fails: \(waits)")
        #expect((waits.max() ?? .zero) >= (waits.min() ?? .zero) * 3, "and grow: \(waits)")
    }

    @Test func aRetryAfterNeverCarriesAWaitPastTheDeadline() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.busyPolls = 1_000_000
        behaviour.busyRetryAfter = "60"
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let sleeper = RecordingSleep()
        let job = HTTPBackendJob()
        let start = ContinuousClock.now
        let failure = await thrownFailure {
            try await converter(fake, sleeper).convert(
                // Long enough for a first poll to be answered while the timed step's other suites
                // (a thousand slow transfers, Calibre's starts, the upstream suite beside them)
                // hold both cores: two fresh-clone runs had none answered within 1.5 s and 4 s,
                // and the timeout then had no poll to name. Still far below the peer's 60 s.
                job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(10)),
                events: { _ in }
            )
        }
        #expect(failure?.kind == .timedOut)
        #expect(failure?.message.contains("try later") == true, "the timeout says what the polls ran into: \(failure?.message ?? "")")
        #expect(secondsSince(start) < 16, "the deadline plus slack for a loaded machine, never 60 s")
        #expect(sleeper.waits.value.allSatisfy { $0 <= .seconds(10) }, "\(sleeper.waits.value)")
    }

    @Test func aPeersRetryAfterHintOnProgressIsHonouredOnlyUpToTheDetectionBound() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.pollRetryAfter = "5"
        behaviour.jobDuration = .milliseconds(150)
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let sleeper = RecordingSleep()
        let job = HTTPBackendJob()
        try await converter(fake, sleeper).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        #expect(!sleeper.waits.value.isEmpty)
        #expect(sleeper.waits.value.allSatisfy { $0 <= .milliseconds(40) }, "\(sleeper.waits.value)")
    }

    @Test func withCancelOnCancellationOffTheRemoteJobIsLeftForResuming() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.jobDuration = .seconds(30)
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let converter = converter(fake, RecordingSleep(), cancelOnCancel: false)
        let request = job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(10))
        let task = Task { try await converter.convert(request, events: { _ in }) }
        try await eventually("the converter polls twice", poll: .milliseconds(10)) { fake.record.value.polls >= 2 }
        task.cancel()
        #expect(await thrownError { try await task.value } is CancellationError)
        #expect(fake.record.value.deletes.isEmpty)
        await converter.cancelRemoteJob("remote-1")
        #expect(fake.record.value.deletes == ["remote-1"])
    }

    /// A resumed job still waiting for its upload will never run: it is dropped and redone.
    @Test func resumeOfANeverSubmittedJobDropsItAndStartsOver() async throws {
        let fake = try FakeRemoteGateway()
        defer { fake.stop() }
        fake.record.update { $0.jobs["stuck"] = FakeRemoteGateway.Job(id: "stuck", status: .created) }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        try await converter(fake, RecordingSleep()).convert(job.request(.docToPDF, source, remoteID: "stuck"), events: { _ in })
        #expect(fileBytes(job.output) == onePagePDF)
        #expect(fake.record.value.deletes == ["stuck"])
        #expect(fake.requests.contains("PUT /upload/remote-1"))
    }
}
