import Foundation
import GatewayAssembly
import GatewayHTTPServing
import GatewayJobModel
import HTTPTypes
import Logging

/// Carries out what a Gotenberg webhook request is owed, from the outbox (so a restart goes on
/// where it stopped): waits for its jobs, then sends the file — the PDF, the zip, the image — to
/// the webhook URL with the method and extra headers asked for, or the failure as Gotenberg's
/// `{"status", "message"}` to the error URL, then the event to the events URL. Every message is
/// retried with our backoff for the outbox's window and signed (Standard Webhooks headers), which
/// Gotenberg's best-effort sends are not. The jobs' documents go afterwards unless kept.
package struct GotenbergWebhookDelivery: WebhookHandOff {
    package var messagePrefix: String { GotenbergWebhook.messagePrefix }
    let jobs: GotenbergJobs
    let logger: Logger

    package init(jobs: GotenbergJobs, logger: Logger) {
        self.jobs = jobs
        self.logger = logger
    }

    /// How long a delivery may take: its jobs' deadlines, then the retries of its messages.
    static let window: TimeInterval = 2 * 3600

    /// The outbox record of a request: sent on from `enqueue`'s start or a restart's resume.
    static func pending(_ envelope: GotenbergWebhook.Envelope, now: Date) throws -> PendingWebhook {
        PendingWebhook(
            messageID: GotenbergWebhook.messagePrefix + UUID().uuidString.lowercased(),
            jobID: envelope.jobs.first?.id ?? UUID(),
            url: envelope.webhook.url,
            body: try JSONEncoder().encode(envelope),
            notBefore: now,
            expiresAt: now.addingTimeInterval(window)
        )
    }

    package func deliver(_ delivery: PendingWebhook, via sender: WebhookSender) async {
        guard let envelope = try? JSONDecoder().decode(GotenbergWebhook.Envelope.self, from: delivery.body) else {
            logger.error("webhook.gotenberg_unreadable", metadata: ["webhook.id": "\(delivery.messageID)"])
            return
        }
        let webhook = envelope.webhook
        var headers = webhook.extraHeaders
        headers["Gotenberg-Trace"] = envelope.trace
        if let parent = envelope.traceParent { headers["traceparent"] = parent.forOutboundCall }
        let outcome = await outcome(of: envelope)
        // A shutdown while waiting: the record stays for the next start.
        if Task.isCancelled { return }
        switch outcome {
        case .success(let file):
            defer {
                if file.temporary { jobs.intake.staging.discardIncoming(file.path) }
            }
            headers["Content-Type"] = file.contentType
            if !headers.keys.contains(where: { $0.lowercased() == "content-disposition" }) {
                headers["Content-Disposition"] = FileResponse.disposition("attachment", filename: file.filename)
            }
            let message = WebhookSender.Message(url: webhook.url, method: webhook.method, headers: headers, body: .file(file.path))
            let sent = await sender.sendUntilDone(message, for: delivery, recording: true)
            if Task.isCancelled { return }
            if sent { await event(["event": "webhook.success"], envelope, delivery, sender) }
        case .failure(let refusal):
            if let errorURL = webhook.errorURL {
                headers["Content-Type"] = "application/json"
                let body = (try? JSONEncoder().encode(refusal)) ?? Data()
                let message = WebhookSender.Message(url: errorURL, method: webhook.errorMethod, headers: headers, body: .bytes(body))
                await sender.sendUntilDone(message, for: delivery, recording: true)
                if Task.isCancelled { return }
            }
            await event(["event": "webhook.error", "error": ["status": refusal.status, "message": refusal.message]], envelope, delivery, sender)
        }
        if !envelope.keep { await jobs.discard(await jobs.engine.current(envelope.jobs.map(\.id))) }
    }

    /// The file the request made, or why not, once every job has ended.
    private func outcome(of envelope: GotenbergWebhook.Envelope) async -> Result<GotenbergAnswer.File, GotenbergWebhook.Envelope.Refusal> {
        if let refusal = envelope.refusal { return .failure(refusal) }
        do {
            var ended: [Job] = []
            for planned in envelope.jobs {
                guard let job = try await jobs.engine.job(planned.id) else {
                    return .failure(.init(status: 500, message: "Internal Server Error"))
                }
                ended.append(try await jobs.waitForEnd(job, cancelling: false))
            }
            let outputs = try await jobs.outputs(ended, planned: envelope.jobs.map { ($0.name, $0.parts) }, owner: envelope.owner)
            return .success(try GotenbergAnswer(jobs: jobs).file(outputs, named: envelope.outputName))
        } catch {
            let refusal = GotenbergError.from(error)
            return .failure(.init(status: refusal.status.code, message: refusal.message))
        }
    }

    /// Gotenberg's event to the events URL, if one was given: retried, not recorded.
    private func event(_ fields: [String: Any], _ envelope: GotenbergWebhook.Envelope, _ delivery: PendingWebhook, _ sender: WebhookSender) async {
        guard let url = envelope.webhook.eventsURL else { return }
        var object = fields
        object["correlationId"] = envelope.trace
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        object["timestamp"] = format.string(from: Date())
        guard let body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        var headers = envelope.webhook.extraHeaders
        headers["Content-Type"] = "application/json"
        headers["Gotenberg-Trace"] = envelope.trace
        if let parent = envelope.traceParent { headers["traceparent"] = parent.forOutboundCall }
        await sender.sendUntilDone(.init(url: url, headers: headers, body: .bytes(body)), for: delivery, recording: false)
    }
}
