import Foundation
import GatewayConverters
import GatewayCore
import GatewayHTTPClient
import Logging
import Synchronization

/// Delivers a job's terminal state to its `callback_url`, signed as Standard Webhooks, retried
/// with the one `BackoffPolicy` for up to `window`. The callback URL passes the same SSRF rules
/// as URL jobs, and the connection is pinned to the address that was checked.
///
/// Deliveries live in memory: a restart during the retry window loses the remaining retries
/// (the job itself is durable and can be polled).
final class WebhookSender: Sendable {
    struct Payload: Encodable {
        var type: String
        var timestamp: Date
        var data: JobJSON
    }

    let signer: WebhookSigner
    let guardrail: URLGuard
    let client: HTTPClient
    let backoff: BackoffPolicy
    let window: Duration
    let logger: Logger
    private let tasks = Mutex<[UUID: Task<Void, Never>]>([:])

    init(
        secret: String,
        urlGuard: URLGuard,
        backoff: BackoffPolicy = BackoffPolicy(initial: .seconds(1), maximum: .seconds(300)),
        window: Duration = .seconds(3600),
        logger: Logger
    ) {
        signer = WebhookSigner(secret: secret)
        guardrail = urlGuard
        client = HTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(15), proxy: .direct))
        self.backoff = backoff
        self.window = window
        self.logger = logger
    }

    /// Starts delivering `json` for `job` unless a delivery for the same job and revision runs.
    func deliver(_ job: Job, json: JobJSON) {
        guard let callback = job.spec.callbackURL, job.state.status.isTerminal else { return }
        let messageID = "msg_\(job.id.lowercased)_\(job.revision)"
        let payload = Payload(type: "job.\(job.state.status.rawValue.lowercased())", timestamp: Date(), data: json)
        guard let body = try? WireJSON.encoder().encode(payload) else { return }
        let task = Task { [self] in
            await send(body, to: callback, messageID: messageID, jobID: job.id)
            _ = tasks.withLock { $0.removeValue(forKey: job.id) }
        }
        tasks.withLock {
            $0[job.id]?.cancel()
            $0[job.id] = task
        }
    }

    func shutdown() {
        for task in tasks.withLock({ Array($0.values) }) { task.cancel() }
    }

    private func send(_ body: Data, to url: String, messageID: String, jobID: UUID) async {
        let started = ContinuousClock.now
        var attempt = 0
        var random = SystemRandomNumberGenerator()
        var metadata: Logger.Metadata = ["job.id": "\(jobID.lowercased)", "webhook.id": "\(messageID)"]
        while !Task.isCancelled {
            attempt += 1
            var retryAfter: Duration?
            do {
                let vetted = try await guardrail.vet(url)
                let timestamp = Int64(Date().timeIntervalSince1970)
                let request = HTTPRequest(
                    method: "POST",
                    url: url,
                    headers: [
                        "Content-Type": "application/json",
                        "webhook-id": messageID,
                        "webhook-timestamp": String(timestamp),
                        "webhook-signature": signer.signature(id: messageID, timestamp: timestamp, body: body),
                    ],
                    body: .bytes(Array(body)),
                    resolve: vetted.curlResolve.map { [$0] } ?? []
                )
                let response = try await client.execute(request, sink: .memory(limit: 64 * 1024))
                if (200..<300).contains(response.status) {
                    logger.info("webhook.delivered", metadata: metadata)
                    return
                }
                metadata["http.status"] = "\(response.status)"
                // 4xx other than 408/429 means the receiver refuses this message: retrying won't help.
                if (400..<500).contains(response.status) && ![408, 429].contains(response.status) {
                    logger.warning("webhook.refused", metadata: metadata)
                    return
                }
                retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0, now: Date()) }
            } catch let failure as JobFailure {
                metadata["error"] = "\(failure.message)"
                if failure.kind == .rejected {
                    logger.warning("webhook.forbidden", metadata: metadata)
                    return
                }
            } catch {
                metadata["error"] = "\(error)"
            }
            let remaining = window - (ContinuousClock.now - started)
            guard let wait = backoff.delay(afterAttempt: attempt, retryAfter: retryAfter, remaining: remaining, using: &random) else {
                logger.warning("webhook.gave_up", metadata: metadata)
                return
            }
            try? await Task.sleep(for: wait)
        }
    }
}
