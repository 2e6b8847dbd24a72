import Foundation
import GatewayHTTPClient
import GatewayJobModel

/// Converts by handing the job to another PDF Gateway over the v1 job protocol (DESIGN §3.1):
/// create → `PUT` upload → submit → poll → download.
///
/// The remote job id is reported (`.remoteJobCreated`) right after create, before any upload or
/// poll, so the engine stores it; an attempt that starts with `request.remoteID` set resumes
/// polling that job instead of uploading again. A resumed job that cannot finish any more — the
/// peer answers 404 for it, or it is CANCELLED, still CREATED (the upload or submit never
/// completed) or FAILED for a transient reason — is abandoned and a fresh remote job is created
/// in the same attempt. (Throwing a transient failure instead would spend the job's attempts: the
/// engine keeps the remote id across retries, so every retry would resume the same dead job.)
///
/// On timeout, and on task cancellation unless disabled, the remote job is cancelled with a
/// best-effort `DELETE`. The converter never retries a failed exchange itself; it classifies it
/// and the engine retries. Only polling repeats, and keeps going through transient trouble
/// until the deadline.
public struct RemoteGatewayConverter: Converter {
    /// Where the remote gateway is and how to talk to it.
    public struct Configuration: Sendable {
        /// The peer's base URL, e.g. `https://convert.example.com` (its `/v1/jobs` lives below it).
        public var baseURL: String
        /// Sent as `Authorization: Bearer …` to the base URL's origin only, never to signed URLs elsewhere.
        public var bearerToken: String?
        /// When to poll.
        public var polling: RemotePollingPolicy
        /// Cap on each small JSON exchange (create, submit, one poll); uploads and downloads are
        /// bounded by the job's deadline alone.
        public var requestTimeout: Duration
        /// Limit on the best-effort `DELETE` that cancels the remote job.
        public var cancelTimeout: Duration
        /// Cancel the remote job when the converting task is cancelled. Turn off if the engine
        /// cancels tasks at shutdown and means to resume them: it can then call `cancelRemoteJob`
        /// for a client's cancel itself.
        public var cancelRemoteJobOnTaskCancellation: Bool
        /// Limit on the `/readyz` probe behind `isReady()`.
        public var readinessTimeout: Duration
        /// Transport settings; the default gives up on a transfer that moves under 1 byte/s for 30 s.
        public var http: HTTPClientConfiguration
        /// How polling waits and where its jitter comes from: the engine's clock, so tests inject
        /// a recording sleep and a seeded generator and the waits they record repeat.
        public var clock: JobClock

        /// A configuration for the peer at `baseURL`.
        public init(
            baseURL: String,
            bearerToken: String? = nil,
            polling: RemotePollingPolicy = RemotePollingPolicy(),
            requestTimeout: Duration = .seconds(30),
            cancelTimeout: Duration = .seconds(2),
            cancelRemoteJobOnTaskCancellation: Bool = true,
            readinessTimeout: Duration = .seconds(3),
            http: HTTPClientConfiguration = HTTPClientConfiguration(
                connectTimeout: .seconds(5),
                lowSpeedLimit: .init(bytesPerSecond: 1, duration: .seconds(30))
            ),
            clock: JobClock = .system
        ) {
            self.baseURL = baseURL
            self.bearerToken = bearerToken
            self.polling = polling
            self.requestTimeout = requestTimeout
            self.cancelTimeout = cancelTimeout
            self.cancelRemoteJobOnTaskCancellation = cancelRemoteJobOnTaskCancellation
            self.readinessTimeout = readinessTimeout
            self.http = http
            self.clock = clock
        }
    }

    /// `gateway`.
    public let name = "gateway"
    /// The settings this converter was made with.
    public let configuration: Configuration
    private let api: RemoteGatewayAPI
    private let poller: RemoteJobPoller

    /// A converter for the peer in `configuration`; it connects only when used.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        api = RemoteGatewayAPI(
            client: HTTPClient(configuration: configuration.http),
            base: base,
            bearerToken: configuration.bearerToken,
            requestTimeout: configuration.requestTimeout
        )
        poller = RemoteJobPoller(api: api, policy: configuration.polling, clock: configuration.clock)
    }

    /// Runs the job on the peer (or resumes `request.remoteID`) and leaves the PDF at `request.outputPath`.
    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        let deadline = RemoteDeadline(request.deadline)
        if let id = request.remoteID, try await resume(id, request, deadline: deadline, events: events) { return }
        try await runFresh(request, deadline: deadline, events: events)
    }

    /// Best-effort cancel of a remote job, for an engine that handles `.cancelRemote` itself.
    public func cancelRemoteJob(_ id: String) async {
        await api.cancel(id, timeout: configuration.cancelTimeout)
    }

    /// Whether the peer's `GET /readyz` answers 200.
    public func isReady() async -> Bool {
        await api.isReady(timeout: configuration.readinessTimeout)
    }

    // MARK: the two ways in

    /// Polls a job an earlier attempt created. Returns false when that job is abandoned (see the type's comment).
    private func resume(
        _ id: String,
        _ request: ConversionRequest,
        deadline: RemoteDeadline,
        events: @escaping @Sendable (ConversionEvent) async -> Void
    ) async throws -> Bool {
        await events(.entered(.polling))
        let end = try await cancellingRemoteJob(id, onAnyFailure: false) {
            try await poller.waitForEnd(of: id, first: nil, deadline: deadline)
        }
        switch end {
        case .succeeded(let url):
            try await download(url, request, deadline: deadline, events: events)
            return true
        case .failed(let answer) where !answer.failedTransiently:
            throw answer.failure(remoteID: id)
        case .neverSubmitted:
            await api.cancel(id, timeout: configuration.cancelTimeout)  // it would sit in CREATED on the peer forever
            return false
        case .failed, .cancelled, .gone:
            return false
        }
    }

    private func runFresh(
        _ request: ConversionRequest,
        deadline: RemoteDeadline,
        events: @escaping @Sendable (ConversionEvent) async -> Void
    ) async throws {
        let created = try await api.create(request, deadline: deadline)
        let id = created.jobID ?? ""
        await events(.remoteJobCreated(id))
        var answer = created
        if case .file(let path, _) = request.source {
            // A job that was never submitted is useless to a later attempt: drop it on any failure.
            answer = try await cancellingRemoteJob(id, onAnyFailure: true) {
                guard let uploadURL = created.uploadURL, !uploadURL.isEmpty else {
                    throw JobFailure(.rejected, code: "remote_protocol_error", "\(RemoteGatewayAPI.service) created job \(id) without an upload URL")
                }
                await events(.entered(.uploading))
                try await api.upload(path, to: uploadURL, deadline: deadline)
                return try await api.submit(id, deadline: deadline)
            }
        }
        await events(.entered(.polling))
        let end = try await cancellingRemoteJob(id, onAnyFailure: false) {
            try await poller.waitForEnd(of: id, first: answer, deadline: deadline)
        }
        switch end {
        case .succeeded(let url):
            try await download(url, request, deadline: deadline, events: events)
        case .failed(let answer):
            throw answer.failure(remoteID: id)
        case .cancelled:
            throw JobFailure(.rejected, code: "remote_cancelled", "\(RemoteGatewayAPI.service) cancelled job \(id)")
        case .gone:
            // The next attempt resumes this id, finds it gone again and starts over.
            throw JobFailure(.transient, code: "remote_job_lost", "\(RemoteGatewayAPI.service) no longer knows job \(id)")
        case .neverSubmitted:
            await api.cancel(id, timeout: configuration.cancelTimeout)
            throw JobFailure(
                .transient,
                code: "remote_job_lost",
                "\(RemoteGatewayAPI.service) still has job \(id) waiting for its upload after submit"
            )
        }
    }

    private func download(
        _ url: String,
        _ request: ConversionRequest,
        deadline: RemoteDeadline,
        events: @escaping @Sendable (ConversionEvent) async -> Void
    ) async throws {
        await events(.entered(.downloading))
        try await api.download(url, to: request.outputPath, deadline: deadline)
    }

    /// Runs `body` for remote job `id` and cancels that job when the attempt gives up on it: at
    /// the deadline, on task cancellation (unless configured off), and on any failure with `onAnyFailure`.
    private func cancellingRemoteJob<R: Sendable>(_ id: String, onAnyFailure: Bool, _ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch {
            let cancel =
                switch error {
                case is CancellationError: onAnyFailure || configuration.cancelRemoteJobOnTaskCancellation
                case let failure as JobFailure where failure.kind == .timedOut: true
                default: onAnyFailure
                }
            if cancel { await api.cancel(id, timeout: configuration.cancelTimeout) }
            throw error
        }
    }
}
