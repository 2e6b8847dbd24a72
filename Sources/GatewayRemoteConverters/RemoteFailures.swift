import Foundation
import GatewayHTTPClient
import GatewayJobModel

/// How the HTTP backends (Gotenberg, a remote gateway) turn what went wrong on the wire into the
/// failure classes of DESIGN §4, so both treat a 503 or a reset connection alike. The engine
/// retries transient failures; a backend never retries on its own.
enum RemoteFailures {
    /// The job's deadline passed while waiting for `service`.
    static func timedOut(service: String, doing what: String) -> JobFailure {
        JobFailure(.timedOut, code: "timed_out", "\(service) did not finish \(what) before the job's deadline")
    }

    /// A complete answer with a status other than 2xx.
    ///
    /// 429 (queue full) and 503 (overloaded or its own timeout) and every other 5xx but 501 are
    /// transient, carrying the peer's `Retry-After`; 501 and the 4xx family are rejections with the
    /// peer's own words, because the same request would fail the same way again. 3xx counts as a
    /// rejection too: redirects are not followed, so one means a misconfigured base URL.
    static func forStatus(
        _ status: Int,
        service: String,
        doing what: String,
        detail: String,
        retryAfter: Duration?
    ) -> JobFailure {
        let said = detail.isEmpty ? "" : ": \(detail)"
        let kind: FailureClass
        let code: String
        switch status {
        case 429: (kind, code) = (.unavailable, "converter_busy")
        case 503: (kind, code) = (.unavailable, "converter_unavailable")
        case 501: (kind, code) = (.rejected, "not_supported")
        case 500...599: (kind, code) = (.transient, "converter_error")
        case 400, 409, 422: (kind, code) = (.rejected, "conversion_rejected")
        case 413: (kind, code) = (.rejected, "input_too_large")
        default: (kind, code) = (.rejected, "converter_refused")
        }
        return JobFailure(kind, code: code, "\(service) answered \(status) while \(what)\(said)", retryAfter: kind.isRetryable ? retryAfter : nil)
    }

    /// The `Retry-After` of an answer, in seconds or as an HTTP date.
    static func retryAfter(of response: HTTPResponse) -> Duration? {
        response.header("Retry-After").flatMap { RetryAfter.parse($0, now: Date()) }
    }

    /// No complete answer arrived. Once the job's deadline has passed, whatever the transfer
    /// died of, the job timed out; before it, network trouble (refused, reset, cut short, stalled,
    /// a per-request timeout) is transient, and a request libcurl will not even send is not.
    static func forTransport(_ error: HTTPClientError, service: String, doing what: String, deadline: RemoteDeadline) -> JobFailure {
        if deadline.hasPassed { return timedOut(service: service, doing: what) }
        let code: String
        let kind: FailureClass
        switch error.kind {
        case .connectFailed: (kind, code) = (.unavailable, "converter_unreachable")
        case .connectionReset, .truncated: (kind, code) = (.transient, "converter_connection_lost")
        case .tooSlow: (kind, code) = (.transient, "converter_too_slow")
        case .timedOut: (kind, code) = (.transient, "converter_timeout")
        // Staging-disk trouble (full, unreadable input) is ours, not the input's fault.
        case .localFile, .other: (kind, code) = (.transient, "converter_transfer_failed")
        case .responseTooLarge: (kind, code) = (.rejected, "output_too_large")
        // A bad certificate, URL or header is configuration: retrying cannot fix it.
        case .tls, .invalidURL, .invalidRequest: (kind, code) = (.rejected, "converter_misconfigured")
        }
        return JobFailure(kind, code: code, "\(service) could not be reached while \(what): \(error.message)")
    }

    /// Runs one exchange, turning transport errors into job failures; `CancellationError` passes through.
    static func exchange<R>(
        service: String,
        doing what: String,
        deadline: RemoteDeadline,
        _ body: () async throws -> R
    ) async throws -> R {
        do {
            return try await body()
        } catch let error as HTTPClientError {
            throw forTransport(error, service: service, doing: what, deadline: deadline)
        }
    }
}
