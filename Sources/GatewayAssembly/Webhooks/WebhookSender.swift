import Foundation
import GatewayCore
import GatewayHTTPClient
import GatewayJobModel
import GatewayURLSecurity
import GatewayWire
import Logging
import Synchronization

/// Delivers a job's terminal state to its `callback_url`, signed as Standard Webhooks, retried
/// with the one `BackoffPolicy` for up to `window`. The callback URL passes the same SSRF rules
/// as URL jobs, and the connection is pinned to the address that was checked.
///
/// Deliveries are durable: each is recorded in the outbox before its first attempt, claimed by
/// this node, rescheduled there after each failure (the claim extended past the next attempt)
/// and removed when it ends. `resumePending()`, at start and then every `sweepEvery`, claims
/// what a stopped or dead node still owed and sends it under the same `webhook-id` and body.
/// (A crash in the moment between a job's terminal write and that record loses its webhook;
/// the job itself can still be polled.) Receivers see each message at least once.
public final class WebhookSender: Sendable {
    /// `{"type": "job.succeeded", "timestamp": …, "data": <the job as the API answers it>}`.
    static func payload(type: String, timestamp: Date, job: JobJSON) throws -> Data {
        var out = JSONOutput()
        out.beginObject()
        out.key("type")
        out.string(type)
        out.key("timestamp")
        out.date(timestamp)
        out.key("data")
        try job.write(to: &out)
        out.endObject()
        return Data(out.bytes)
    }

    let signer: WebhookSigner
    let guardrail: URLGuard
    let client: HTTPClient
    let outbox: any WebhookDeliveries
    /// Whose claims this sender's are: the engine's node id.
    let node: String
    /// How long a claim lasts past the moment it is made or extended.
    static let claimFor: TimeInterval = 60
    let backoff: BackoffPolicy
    let window: Duration
    /// Time, retry jitter and the waits between attempts.
    let clock: JobClock
    let logger: Logger
    /// Deliveries in progress, by message id.
    private let tasks = Mutex<[String: Task<Void, Never>]>([:])
    /// Carries out deliveries of a kind of its own (Gotenberg's webhook mode); set by the HTTP
    /// module once its routes exist, nil where they are off.
    private let handOff = Mutex<(any WebhookHandOff)?>(nil)

    public init(
        secret: String,
        urlGuard: URLGuard,
        outbox: any WebhookDeliveries,
        node: String,
        backoff: BackoffPolicy = BackoffPolicy(initial: .seconds(1), maximum: .seconds(300)),
        window: Duration = .seconds(3600),
        clock: JobClock = .system,
        logger: Logger
    ) {
        signer = WebhookSigner(secret: secret)
        guardrail = urlGuard
        client = HTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(15), proxy: .direct))
        self.outbox = outbox
        self.node = node
        self.backoff = backoff
        self.window = window
        self.clock = clock
        self.logger = logger
    }

    /// From now on, deliveries whose message id starts with `handOff.messagePrefix` are carried
    /// out by `handOff` (which still sends through `sendUntilDone`).
    public func handOff(to handOff: any WebhookHandOff) {
        self.handOff.withLock { $0 = handOff }
    }

    /// Records `delivery` in the outbox, claimed by this node, then starts it: once this
    /// returns, a restart still owes it (Gotenberg's webhook mode answers 204 only then).
    public func enqueue(_ delivery: PendingWebhook) async throws {
        let claim = claim(from: clock.now())
        try await outbox.add(delivery, claim: claim)
        start(delivery)
    }

    /// Waits until the delivery of `messageID` ends (delivered, refused for good, or given up),
    /// for at most `limit`; past it the delivery goes on, still owed. Gotenberg's synchronous
    /// webhook mode answers its request only then.
    public func awaitDelivery(_ messageID: String, within limit: Duration) async {
        guard let task = tasks.withLock({ $0[messageID] }) else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await task.value }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Starts delivering `job`'s end unless a delivery for the same job and revision runs; its
    /// JSON comes from `json`, called in the delivery's own task (which `shutdown()` stops).
    public func deliver(_ job: Job, json: @escaping @Sendable () async -> JobJSON) {
        guard let callback = job.spec.callbackURL, job.state.status.isTerminal else { return }
        track("msg_\(job.id.lowercased)_\(job.revision)") { [self] messageID in
            let now = clock.now()
            let type = "job.\(job.state.status.rawValue.lowercased())"
            guard let body = try? Self.payload(type: type, timestamp: now, job: await json()) else { return }
            let delivery = PendingWebhook(
                messageID: messageID,
                jobID: job.id,
                url: callback,
                body: body,
                notBefore: now,
                expiresAt: now.addingTimeInterval(window.inSeconds)
            )
            // Recorded from this task, not the caller's: the engine may call from a job's task
            // that a cancel has just cancelled, and GRDB refuses a cancelled task's writes.
            do { try await outbox.add(delivery, claim: claim(from: clock.now())) } catch {
                logger.warning("webhook.not_recorded", metadata: ["error": "\(error)"])
            }
            await send(delivery)
        }
    }

    /// Claims and resumes the deliveries whose node stopped or died before they ended.
    /// `atStart` on a store nobody shares: every claim is a previous process's, so all of them
    /// are taken at once rather than when they lapse.
    public func resumePending(atStart alone: Bool = false) async {
        do {
            let now = clock.now()
            let pending = try await outbox.claimLapsed(now: alone ? .distantFuture : now, claim: claim(from: now), limit: 1000)
            for delivery in pending { start(delivery) }
            if !pending.isEmpty { logger.notice("webhook.resumed", metadata: ["count": "\(pending.count)"]) }
        } catch {
            logger.error("webhook.resume_failed", metadata: ["error": "\(error)"])
        }
    }

    /// Resumes lapsed deliveries every `interval` until cancelled: another node's, once its
    /// claims run out.
    public func sweep(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            await resumePending()
        }
    }

    private func claim(from date: Date) -> JobLease { JobLease(node: node, expires: date.addingTimeInterval(Self.claimFor)) }

    /// Stops the deliveries in progress and waits for them to end; what they still owe stays
    /// in the outbox for the next start.
    public func shutdown() async {
        let running = tasks.withLock { Array($0.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    /// Starts a delivery already in the outbox.
    private func start(_ delivery: PendingWebhook) {
        track(delivery.messageID) { [self] _ in await send(delivery) }
    }

    /// Runs `work` for message `messageID` unless a delivery of it runs already.
    private func track(_ messageID: String, _ work: @escaping @Sendable (String) async -> Void) {
        tasks.withLock { tasks in
            guard tasks[messageID] == nil else { return }
            // Awaited and cancelled by `shutdown()`. Registered under the lock its own removal
            // takes, so the removal cannot come first.
            tasks[messageID] = Task { [self] in
                await work(messageID)
                _ = self.tasks.withLock { $0.removeValue(forKey: messageID) }
            }
        }
    }

    /// One HTTP message of a delivery: where, how, and what it carries.
    public struct Message: Sendable {
        public enum Body: Sendable {
            case bytes(Data)
            /// A file streamed from disk (a Gotenberg webhook's PDF or zip).
            case file(String)
        }
        public var url: String
        public var method = "POST"
        /// Besides the signature's three, which every message carries.
        public var headers: [String: String]
        public var body: Body

        public init(url: String, method: String = "POST", headers: [String: String], body: Body) {
            (self.url, self.method, self.headers, self.body) = (url, method, headers, body)
        }
    }

    private func send(_ delivery: PendingWebhook) async {
        if let handOff = handOff.withLock({ $0 }), delivery.messageID.hasPrefix(handOff.messagePrefix) {
            await handOff.deliver(delivery, via: self)
        } else {
            await waitUntilDue(delivery)
            let message = Message(url: delivery.url, headers: ["Content-Type": "application/json"], body: .bytes(delivery.body))
            // Taken is taken, shutdown or not: the next start must not send it again.
            if await sendUntilDone(message, for: delivery, recording: true) {
                return await finish(delivery)
            }
        }
        // Stopped by a shutdown: what is still owed stays in the outbox for the next start.
        if Task.isCancelled { return }
        await finish(delivery)
    }

    public func waitUntilDue(_ delivery: PendingWebhook) async {
        let untilDue = delivery.notBefore.timeIntervalSince(clock.now())
        if untilDue > 0 { try? await clock.sleep(.milliseconds(Int64(untilDue * 1000))) }
    }

    /// Sends `message` until the receiver takes it (true) or refuses it for good, the SSRF
    /// rules refuse its URL, or `delivery`'s window closes (false). With `recording`, each
    /// failed attempt is rescheduled in the outbox, so a restart goes on from there.
    @discardableResult
    public func sendUntilDone(_ message: Message, for delivery: PendingWebhook, recording: Bool) async -> Bool {
        var attempt = recording ? delivery.attempts : 0
        var random = clock.makeRandom()
        var metadata: Logger.Metadata = [
            "job.id": "\(delivery.jobID.lowercased)", "webhook.id": "\(delivery.messageID)", "http.method": "\(message.method)",
        ]
        while !Task.isCancelled {
            attempt += 1
            var retryAfter: Duration?
            do {
                let vetted = try await guardrail.vet(message.url)
                let timestamp = Int64(clock.now().timeIntervalSince1970)
                let signature: String
                let body: HTTPRequestBody
                switch message.body {
                case .bytes(let data):
                    signature = signer.signature(id: delivery.messageID, timestamp: timestamp, body: data)
                    body = .bytes(Array(data))
                case .file(let path):
                    signature = try signer.signature(id: delivery.messageID, timestamp: timestamp, file: path)
                    body = .file(path: path)
                }
                var headers = message.headers
                headers["webhook-id"] = delivery.messageID
                headers["webhook-timestamp"] = String(timestamp)
                headers["webhook-signature"] = signature
                let request = HTTPRequest(
                    method: message.method,
                    url: message.url,
                    headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
                    body: body,
                    resolve: vetted.curlResolve.map { [$0] } ?? []
                )
                let response = try await client.execute(request, sink: .memory(limit: 64 * 1024))
                if (200..<300).contains(response.status) {
                    logger.info("webhook.delivered", metadata: metadata)
                    return true
                }
                metadata["http.status"] = "\(response.status)"
                // 4xx other than 408/429 means the receiver refuses this message: retrying won't help.
                if (400..<500).contains(response.status) && ![408, 429].contains(response.status) {
                    logger.warning("webhook.refused", metadata: metadata)
                    return false
                }
                retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0, now: clock.now()) }
            } catch let failure as JobFailure {
                metadata["error"] = "\(failure.message)"
                if failure.kind == .rejected {
                    logger.warning("webhook.forbidden", metadata: metadata)
                    return false
                }
            } catch {
                metadata["error"] = "\(error)"
            }
            let remaining = Duration.milliseconds(Int64(max(0, delivery.expiresAt.timeIntervalSince(clock.now())) * 1000))
            guard let wait = backoff.delay(afterAttempt: attempt, retryAfter: retryAfter, remaining: remaining, using: &random) else {
                logger.warning("webhook.gave_up", metadata: metadata)
                return false
            }
            if recording {
                let next = clock.now().addingTimeInterval(wait.inSeconds)
                let claim = claim(from: next)
                try? await outbox.reschedule(delivery.messageID, attempts: attempt, notBefore: next, claim: claim)
            }
            try? await clock.sleep(wait)
        }
        return false
    }

    /// The delivery ended one way or another: nothing more is owed. Shielded: a shutdown's
    /// cancel must not stop the write (GRDB refuses a cancelled task's); `shutdown()` still
    /// waits for it.
    private func finish(_ delivery: PendingWebhook) async {
        let outbox = outbox
        do { try await shielded { try await outbox.remove(delivery.messageID) } } catch {
            logger.warning("webhook.not_cleared", metadata: ["error": "\(error)"])
        }
    }
}

/// A kind of delivery carried out by another module, which knows what its messages are
/// (Gotenberg's webhook mode: the PDF itself, or an error, to URLs its request named).
public protocol WebhookHandOff: Sendable {
    /// The message ids of its deliveries start with this.
    var messagePrefix: String { get }
    func deliver(_ delivery: PendingWebhook, via sender: WebhookSender) async
}
