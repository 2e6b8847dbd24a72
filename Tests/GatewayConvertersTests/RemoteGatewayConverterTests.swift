import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayRemoteConverters

/// `RemoteGatewayConverter` against a fake peer speaking the v1 job protocol on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct RemoteGatewayConverterTests {
    /// Polls every few milliseconds, so tests wait on the fake's job, not on the policy.
    static let quickPolling = RemotePollingPolicy(
        backoff: BackoffPolicy(initial: .milliseconds(10), multiplier: 1.5, maximum: .milliseconds(40), jitter: 0),
        detectionFraction: 0.14,
        detectionFloor: .milliseconds(40)
    )

    func converter(
        _ fake: FakeRemoteGateway,
        token: String? = nil,
        polling: RemotePollingPolicy = quickPolling
    ) -> RemoteGatewayConverter {
        RemoteGatewayConverter(
            configuration: .init(
                baseURL: fake.baseURL + "/",
                bearerToken: token,
                polling: polling,
                cancelTimeout: .seconds(1),
                http: httpTestTransport()
            )
        )
    }

    @Test func fileJobRunsTheWholeProtocolAndReportsTheRemoteIDFirst() async throws {
        let events = HTTPBackendEvents()
        let fake = try FakeRemoteGateway(events: events)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        try await converter(fake, token: "s3cret").convert(job.request(.docToPDF, source), events: events.sink)

        #expect(fileBytes(job.output) == onePagePDF)
        #expect(events.all == [.remoteJobCreated("remote-1"), .entered(.uploading), .entered(.polling), .entered(.downloading)])
        let record = fake.record.value
        #expect(record.idKnownAtUpload == true)
        #expect(record.uploadContentType == "application/octet-stream")
        #expect(record.idKnownAtFirstPoll == true)
        #expect(record.jobs["remote-1"]?.body == ["type": "DOC_TO_PDF", "original_filename": "Report.docx"])
        // The upload arrived intact.
        let uploaded = job.directory.file("uploaded")
        _ = FileManager.default.createFile(atPath: uploaded, contents: Data(record.jobs["remote-1"]?.uploaded ?? []))
        #expect(try await sha256Hex(ofFile: uploaded) == sha256Hex(ofFile: Fixtures.office("sample.docx")))
        #expect(fake.requests.prefix(3) == ["POST /v1/jobs", "PUT /upload/remote-1", "POST /v1/jobs/remote-1/submit"])
        #expect(fake.requests.last == "GET /download/remote-1")
        #expect(record.authorization["POST /v1/jobs"] == "Bearer s3cret")
        #expect(record.deletes.isEmpty)
    }

    /// A peer that finishes the job but sends something other than the whole PDF: each is a
    /// transient failure (the next attempt may download fine) that names what went wrong and
    /// leaves no output behind.
    @Test(arguments: [
        (FakeRemoteGateway.Download.garbage("<html>proxy login</html>"), "proxy login"),
        (.truncated, "connection"),
        (.status(500), "500"),
    ])
    func aBrokenDownloadFailsTransientlyAndLeavesNothing(download: FakeRemoteGateway.Download, named: String) async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.download = download
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        let failure = await thrownFailure { try await converter(fake).convert(job.request(.docToPDF, source), events: { _ in }) }
        #expect(failure?.kind == .transient)
        #expect(failure?.message.contains(named) == true, "\(failure?.message ?? "no failure")")
        #expect(fake.requests.last == "GET /download/remote-1")
        #expect(!job.outputExists)
    }

    /// A download that trickles in is cut at the job's deadline, not when the peer is done.
    @Test func aTricklingDownloadIsCutAtTheDeadline() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.download = .trickle
        behaviour.jobDuration = .zero
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        let start = ContinuousClock.now
        let failure = await thrownFailure {
            try await converter(fake).convert(job.request(.docToPDF, source, timeout: .seconds(2)), events: { _ in })
        }
        #expect(failure?.kind == .timedOut, "\(failure?.message ?? "no failure")")
        #expect(secondsSince(start) < 3.5)
        #expect(fake.requests.contains("GET /download/remote-1"))
        #expect(!job.outputExists)
    }

    @Test func urlJobNeedsNoUploadOrSubmit() async throws {
        let fake = try FakeRemoteGateway()
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let options = ConversionOptions(landscape: true)
        try await converter(fake).convert(job.request(.urlToPDF, .url("https://example.com/x"), options: options), events: { _ in })
        #expect(fileBytes(job.output) == onePagePDF)
        #expect(fake.record.value.jobs["remote-1"]?.body == ["type": "URL_TO_PDF", "url": "https://example.com/x"])
        #expect(!fake.requests.contains { $0.hasPrefix("PUT") || $0.hasSuffix("/submit") })
    }

    /// A remote job of 1.5 s: the default policy asks a handful of times (50 ms fixed polling
    /// would ask 30 times) and still notices the end within the 500 ms floor.
    @Test func defaultPolicyPollsRarelyAndNoticesTheEndQuickly() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.jobDuration = .milliseconds(1500)
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        try await converter(fake, polling: RemotePollingPolicy()).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })

        let record = fake.record.value
        let fixedPolls = 1500 / 50
        #expect(record.polls <= 8, "polled \(record.polls) times")
        #expect(record.polls * 3 < fixedPolls)
        let finished = try #require(record.finishedAt)
        let noticed = try #require(record.finishNoticedAt)
        let delay = finished.duration(to: noticed)
        // The policy bounds the gap at 450 ms; the rest is one poll round trip, slower on a loaded machine.
        #expect(delay <= .milliseconds(600), "noticed \(delay) after the remote finished")
    }

    @Test func resumeWithARemoteIDPollsWithoutCreatingOrUploading() async throws {
        let events = HTTPBackendEvents()
        let fake = try FakeRemoteGateway(events: events)
        defer { fake.stop() }
        fake.seedJob(id: "earlier-7", queuedAgo: .milliseconds(100))
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        try await converter(fake).convert(job.request(.docToPDF, source, remoteID: "earlier-7"), events: events.sink)

        #expect(fileBytes(job.output) == onePagePDF)
        // Only reads of the stored job (a poll, an event-stream attempt this fake lacks) and the download.
        let reads: Set<String> = ["GET /v1/jobs/earlier-7", "GET /v1/jobs/earlier-7/events", "GET /download/earlier-7"]
        #expect(fake.requests.allSatisfy(reads.contains), "\(fake.requests)")
        #expect(!fake.requests.contains { $0.hasPrefix("POST") || $0.hasPrefix("PUT") }, "no create, upload or submit")
        #expect(events.all == [.entered(.polling), .entered(.downloading)])
    }

    /// The peer forgot the job (404): it is abandoned and a new one created in the same attempt,
    /// because the engine would hand the same dead id to every retry.
    @Test func resumeOfAJobThePeerForgotStartsOver() async throws {
        let events = HTTPBackendEvents()
        let fake = try FakeRemoteGateway(events: events)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        try await converter(fake).convert(job.request(.docToPDF, source, remoteID: "vanished"), events: events.sink)

        #expect(fileBytes(job.output) == onePagePDF)
        #expect(fake.requests.prefix(3) == ["GET /v1/jobs/vanished", "POST /v1/jobs", "PUT /upload/remote-1"])
        #expect(events.all.contains(.remoteJobCreated("remote-1")))
    }

    @Test func remoteFailureIsRejectedWithTheRemoteMessage() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.outcome = .fail(code: "conversion_rejected", message: "LibreOffice could not read the file: it is encrypted")
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("protected.docx"), as: "protected.docx")
        let failure = await thrownFailure { try await converter(fake).convert(job.request(.docToPDF, source), events: { _ in }) }
        #expect(failure?.kind == .rejected)
        #expect(failure?.message.contains("LibreOffice could not read the file: it is encrypted") == true)
        #expect(!job.outputExists)
    }

    @Test func remoteFailureOfItsConverterIsTransient() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.outcome = .fail(code: "converter_unavailable", message: "Gotenberg is down")
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let failure = await thrownFailure { try await converter(fake).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in }) }
        #expect(failure?.kind == .transient)
        #expect(failure?.message.contains("Gotenberg is down") == true)
    }

    @Test func hungStatusPollsTimeOutAtTheDeadlineAndCancelTheRemoteJob() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.hangOnPolls = true
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let start = ContinuousClock.now
        let failure = await thrownFailure {
            try await converter(fake).convert(job.request(.urlToPDF, .url("https://example.com"), timeout: .milliseconds(1500)), events: { _ in })
        }
        #expect(failure?.kind == .timedOut)
        #expect(secondsSince(start) < 2.5)
        #expect(fake.record.value.deletes == ["remote-1"])
    }

    @Test func cancellingTheTaskCancelsTheRemoteJob() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.jobDuration = .seconds(30)
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let converter = converter(fake)
        let request = job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(10))
        let task = Task { try await converter.convert(request, events: { _ in }) }
        try await eventually("the converter polls twice", poll: .milliseconds(10)) { fake.record.value.polls >= 2 }
        let start = ContinuousClock.now
        task.cancel()
        let error = await thrownError { try await task.value }
        #expect(error is CancellationError)
        #expect(secondsSince(start) < 1.5)
        #expect(fake.record.value.deletes == ["remote-1"])
    }

    @Test func overloadedCreateIsTransientWithRetryAfter() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.createAnswer = (503, [("Retry-After", "7")])
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let failure = await thrownFailure { try await converter(fake).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in }) }
        #expect(failure?.kind == .unavailable, "a 503 says the gateway has not tried the input")
        #expect(failure?.retryAfter == .seconds(7))
        #expect(failure?.message.contains("the gateway is overloaded") == true)
    }

    @Test func rejectedUploadFailsAndDropsTheUnsubmittedRemoteJob() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.uploadStatus = 413
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Report.docx")
        let failure = await thrownFailure { try await converter(fake).convert(job.request(.docToPDF, source), events: { _ in }) }
        #expect(failure?.kind == .rejected)
        #expect(failure?.code == "input_too_large")
        #expect(fake.record.value.deletes == ["remote-1"])
    }

    @Test func brokenPollsDoNotFailTheJob() async throws {
        var behaviour = FakeRemoteGateway.Behaviour()
        behaviour.resetPolls = 3
        let fake = try FakeRemoteGateway(behaviour)
        defer { fake.stop() }
        let job = HTTPBackendJob()
        try await converter(fake).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        #expect(fileBytes(job.output) == onePagePDF)
        #expect(fake.record.value.polls > 3)
    }

    @Test func readinessIsTheReadyzRoute() async throws {
        let server = try FakeHTTPServer { request, response in
            try response.respond(status: request.path == "/readyz" && request.header("Authorization") == "Bearer t" ? 200 : 503)
        }
        let base = server.baseURL
        let ready = RemoteGatewayConverter(configuration: .init(baseURL: base, bearerToken: "t", http: httpTestTransport()))
        let wrongToken = RemoteGatewayConverter(configuration: .init(baseURL: base, bearerToken: "x", http: httpTestTransport()))
        #expect(await ready.isReady())
        #expect(await !wrongToken.isReady())
    }
}
