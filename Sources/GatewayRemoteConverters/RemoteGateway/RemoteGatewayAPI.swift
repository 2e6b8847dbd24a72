import Foundation
import GatewayHTTPClient
import GatewayJobModel

/// What one status poll learned.
enum RemotePollOutcome: Sendable {
    /// The job's state, with the peer's `Retry-After` hint if it sent one.
    case answer(RemoteJobAnswer, retryAfter: Duration?)
    /// 404 or 410: the peer does not know the job (it was purged, or the peer's store was reset).
    case gone
    /// Nothing usable this time, but the job may well be fine: the network failed, the peer was
    /// overloaded (`retryAfter` then carries its wish) or answered something unreadable.
    case tryAgain(JobFailure)
}

/// The v1 job protocol of DESIGN §3.1 as a client, one method per call. Every call is bounded by
/// the job's deadline and by `requestTimeout`; every failure comes out as a classified `JobFailure`
/// (or `CancellationError`).
struct RemoteGatewayAPI: Sendable {
    static let service = "the remote gateway"

    let client: HTTPClient
    /// Base URL without a trailing slash.
    let base: String
    let bearerToken: String?
    /// Cap on one small JSON exchange, so a stalled poll is retried instead of eating the deadline.
    let requestTimeout: Duration

    /// `POST /v1/jobs`; the answer is guaranteed to carry a job id.
    func create(_ request: ConversionRequest, deadline: RemoteDeadline) async throws -> RemoteJobAnswer {
        let body = try JSONEncoder().encode(RemoteJobCreation(request))
        let response = try await send("POST", base + "/v1/jobs", body: .bytes(Array(body)), doing: "creating a job", deadline: deadline)
        guard let answer = RemoteJobAnswer.parse(response.body), let id = answer.jobID, !id.isEmpty else {
            throw protocolError("its answer to creating a job has no job_id: \(RemoteOutput.excerpt(response.bodyText, limit: 300))")
        }
        return answer
    }

    /// `PUT` the staged file to the signed upload URL, streamed from disk.
    func upload(_ path: String, to url: String, deadline: RemoteDeadline) async throws {
        let timeout = try deadline.timeout(service: Self.service, doing: "receiving the upload")
        var headers = headers(for: absolute(url))
        headers.add("Content-Type", "application/octet-stream")
        let call = HTTPRequest(method: "PUT", url: absolute(url), headers: headers, body: .file(path: path))
        let response = try await RemoteFailures.exchange(service: Self.service, doing: "receiving the upload", deadline: deadline) {
            try await client.execute(call, sink: .memory(limit: 64 << 10), timeout: timeout)
        }
        try requireSuccess(response, doing: "receiving the upload")
    }

    /// `POST /v1/jobs/{id}/submit`; the answer says QUEUED, or already SUCCEEDED.
    func submit(_ id: String, deadline: RemoteDeadline) async throws -> RemoteJobAnswer {
        let response = try await send("POST", jobURL(id) + "/submit", body: .none, doing: "submitting job \(id)", deadline: deadline)
        return RemoteJobAnswer.parse(response.body) ?? RemoteJobAnswer(status: .queued)
    }

    /// `GET /v1/jobs/{id}/events` held open until the job ends: the last event's job, or nil when
    /// the peer does not stream events or the stream broke (the caller then polls).
    func watch(_ id: String, deadline: RemoteDeadline) async -> RemoteJobAnswer? {
        guard let timeout = try? deadline.timeout(cappedAt: .seconds(600), service: Self.service, doing: "streaming job \(id)") else {
            return nil
        }
        var headers = headers(for: base)
        headers.add("Accept", "text/event-stream")
        guard
            let response = try? await client.execute(
                HTTPRequest(url: jobURL(id) + "/events", headers: headers),
                sink: .memory(limit: 4 << 20),
                timeout: timeout
            ),
            response.status == 200, response.header("Content-Type")?.hasPrefix("text/event-stream") == true
        else { return nil }
        let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n")
        guard let data = lines.last(where: { $0.hasPrefix("data:") }) else { return nil }
        return RemoteJobAnswer.parse(Array(data.dropFirst(5).drop { $0 == " " }.utf8))
    }

    /// `GET /v1/jobs/{id}`. Only failures that no amount of polling can fix are thrown.
    func status(_ id: String, deadline: RemoteDeadline) async throws -> RemotePollOutcome {
        let what = "reporting on job \(id)"
        let timeout = try deadline.timeout(cappedAt: requestTimeout, service: Self.service, doing: what)
        let response: HTTPResponse
        do {
            response = try await client.execute(
                HTTPRequest(url: jobURL(id), headers: headers(for: base)),
                sink: .memory(limit: 1 << 20),
                timeout: timeout
            )
        } catch let error as HTTPClientError {
            let failure = RemoteFailures.forTransport(error, service: Self.service, doing: what, deadline: deadline)
            guard failure.kind.isRetryable else { throw failure }
            return .tryAgain(failure)
        }
        let retryAfter = RemoteFailures.retryAfter(of: response)
        switch response.status {
        case 200..<300:
            guard let answer = RemoteJobAnswer.parse(response.body), answer.status != nil else {
                return .tryAgain(protocolError("its answer about job \(id) has no status", kind: .transient))
            }
            return .answer(answer, retryAfter: retryAfter)
        case 404, 410:
            return .gone
        default:
            let failure = RemoteFailures.forStatus(
                response.status,
                service: Self.service,
                doing: what,
                detail: detail(of: response),
                retryAfter: retryAfter
            )
            guard failure.kind.isRetryable else { throw failure }
            return .tryAgain(failure)
        }
    }

    /// `GET` the signed download URL into `path`, then checks it is a PDF.
    func download(_ url: String, to path: String, deadline: RemoteDeadline) async throws {
        let what = "sending the PDF"
        let timeout = try deadline.timeout(service: Self.service, doing: what)
        let call = HTTPRequest(url: absolute(url), headers: headers(for: absolute(url)))
        let response: HTTPResponse
        do {
            response = try await RemoteFailures.exchange(service: Self.service, doing: what, deadline: deadline) {
                try await client.execute(call, sink: .file(path: path), timeout: timeout)
            }
        } catch {
            RemoteOutput.discard(path)
            throw error
        }
        guard response.isSuccess else {
            let detail = RemoteOutput.excerpt(ofFile: path, limit: 500)
            RemoteOutput.discard(path)
            if [403, 404, 410].contains(response.status) {
                // An expired or refused signed URL: the next attempt polls again and gets a fresh one.
                throw JobFailure(.transient, code: "download_failed", "\(Self.service) refused the download (\(response.status)): \(detail)")
            }
            throw RemoteFailures.forStatus(
                response.status,
                service: Self.service,
                doing: what,
                detail: detail,
                retryAfter: RemoteFailures.retryAfter(of: response)
            )
        }
        try RemoteOutput.verifyPDF(at: path, service: Self.service)
    }

    /// Best-effort `DELETE /v1/jobs/{id}`, sent even when the calling task is cancelled: it runs
    /// in a detached task (which does not inherit the cancellation), bounded by `timeout`.
    func cancel(_ id: String, timeout: Duration) async {
        let call = HTTPRequest(method: "DELETE", url: jobURL(id), headers: headers(for: base))
        let client = client
        await Task.detached {  // awaited here
            _ = try? await client.execute(call, sink: .memory(limit: 64 << 10), timeout: timeout)
        }.value
    }

    /// Whether `GET /readyz` answers 200 within `timeout`.
    func isReady(timeout: Duration) async -> Bool {
        let response = try? await client.execute(HTTPRequest(url: base + "/readyz", headers: headers(for: base)), timeout: timeout)
        return response?.status == 200
    }

    // MARK: helpers

    /// A small JSON exchange that must answer 2xx.
    private func send(
        _ method: String,
        _ url: String,
        body: HTTPRequestBody,
        doing what: String,
        deadline: RemoteDeadline
    ) async throws -> HTTPResponse {
        let timeout = try deadline.timeout(cappedAt: requestTimeout, service: Self.service, doing: what)
        var headers = headers(for: url)
        headers.add("Accept", "application/json")
        if case .bytes = body { headers.add("Content-Type", "application/json") }
        let call = HTTPRequest(method: method, url: url, headers: headers, body: body)
        let response = try await RemoteFailures.exchange(service: Self.service, doing: what, deadline: deadline) {
            try await client.execute(call, sink: .memory(limit: 1 << 20), timeout: timeout)
        }
        try requireSuccess(response, doing: what)
        return response
    }

    private func requireSuccess(_ response: HTTPResponse, doing what: String) throws(JobFailure) {
        guard !response.isSuccess else { return }
        throw RemoteFailures.forStatus(
            response.status,
            service: Self.service,
            doing: what,
            detail: detail(of: response),
            retryAfter: RemoteFailures.retryAfter(of: response)
        )
    }

    /// The peer's explanation: `error_message [error]` from a v1 error body, else the text itself.
    private func detail(of response: HTTPResponse) -> String {
        if let answer = RemoteJobAnswer.parse(response.body), let message = answer.errorMessage {
            return RemoteOutput.excerpt(message + (answer.errorCode.map { " [\($0)]" } ?? ""), limit: 500)
        }
        return RemoteOutput.excerpt(response.bodyText, limit: 500)
    }

    private func protocolError(_ what: String, kind: FailureClass = .rejected) -> JobFailure {
        JobFailure(kind, code: "remote_protocol_error", "\(Self.service) does not speak the v1 job protocol as expected: \(what)")
    }

    private func jobURL(_ id: String) -> String {
        // Ids are UUIDs in practice; escaping keeps a stranger one inside its path segment.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return base + "/v1/jobs/" + (id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id)
    }

    /// Signed URLs are absolute per §3.1; a relative one is resolved against the base URL's origin.
    func absolute(_ url: String) -> String {
        guard url.hasPrefix("/"), let components = URLComponents(string: base) else { return url }
        var origin = components
        origin.path = ""
        origin.query = nil
        origin.fragment = nil
        return (origin.string ?? base) + url
    }

    /// The bearer token goes only to the base URL's own origin: a signed URL pointing elsewhere
    /// (a CDN, object storage) needs no token and must not learn it.
    private func headers(for url: String) -> HTTPHeaders {
        guard let bearerToken, Self.origin(of: url) == Self.origin(of: base), Self.origin(of: base) != nil else { return [:] }
        return ["Authorization": "Bearer \(bearerToken)"]
    }

    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
