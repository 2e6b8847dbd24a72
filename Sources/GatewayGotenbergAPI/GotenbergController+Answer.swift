import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel
import GatewayURLSecurity
import HTTPTypes
import Hummingbird

/// How a Gotenberg route answers: the file, the zip or the image, or the webhook's 204, with Gotenberg's headers.
extension GotenbergController {
    /// Receives the form, runs `body`'s jobs and answers with their PDF, Gotenberg's way.
    func answering(
        _ request: Request,
        _ context: GatewayRequestContext,
        _ body: (String, MultipartForm) async throws -> [GotenbergJobs.Output]
    ) async throws -> Response {
        try await receiving(request, context) { owner, form in
            let outputs = try await body(owner, form)
            return try await GotenbergAnswer(jobs: jobs).response(outputs, request: request, context: context)
        }
    }

    /// Receives the form of an owner's request and answers what `body` makes of it; every
    /// error becomes Gotenberg's plain-text answer, and the trace id comes back on every answer.
    /// With Gotenberg's webhook headers, the answer is 204 once the jobs (or the refusal) are
    /// recorded in the outbox, and the rest goes to the webhook (`GotenbergWebhookDelivery`).
    func receiving(
        _ request: Request,
        _ context: GatewayRequestContext,
        _ body: (String, MultipartForm) async throws -> Response
    ) async throws -> Response {
        // Set by `GotenbergTraceMiddleware`, which puts it on the answer, refusals included.
        let trace = GotenbergJobs.trace ?? UUID().uuidString.lowercased()
        do {
            let owner = try context.requireOwner()
            // Bad webhook headers are answered now, as Gotenberg does, not sent anywhere; without
            // the webhook module they mean nothing, as in Gotenberg.
            let webhook = webhooks == nil ? nil : try GotenbergWebhook.parse(request.headers, urlCheck: intake.urlCheck)
            let deadline = ContinuousClock.now + (settings.timeout ?? GotenbergAdmission.defaultTimeout)
            return try await GotenbergAdmission.$current.withValue((deadline, Self.module(of: request))) {
                try await jobs.admitting { try await intake.admitBeforeBody(owner: owner, key: nil) }
                // A client that hangs up while its jobs run cancels them: nobody is left to answer.
                return try await hangUps.run(request) { requestBody in
                    try await GotenbergWarnings.$current.withValue(GotenbergWarnings()) {
                        try await answer(request, requestBody, owner: owner, webhook: webhook, trace: trace, body)
                    }
                }
            }
        } catch {
            throw GotenbergError.from(error)
        }
    }

    /// The form received from `requestBody`, its downloads fetched, then the route's answer (or,
    /// for a webhook request, 204 once what is owed is recorded).
    func answer(
        _ request: Request,
        _ requestBody: RequestBody,
        owner: String,
        webhook: GotenbergWebhook?,
        trace: String,
        _ body: (String, MultipartForm) async throws -> Response
    ) async throws -> Response {
        let staging = intake.staging
        var form = try await MultipartForm.receive(
            requestBody,
            contentType: request.headers[.contentType] ?? "",
            filePart: nil,
            maxFiles: JobInput.maxCount,
            paths: { staging.incomingPath() },
            maxBytes: maxUploadBytes,
            hashing: false
        )
        // What the jobs did not take (all of it, when they failed) goes, downloads included.
        defer { for file in form.files { staging.discardIncoming(file.path) } }
        if settings.downloadFrom {
            try await downloads.fetch(into: &form, staging: staging, trace: trace)
        } else if let listed = form.fields["downloadFrom"], !listed.isEmpty {
            GotenbergWarnings.note("downloadFrom ignored: this gateway's operator turned it off (API_DISABLE_DOWNLOAD_FROM)")
        }
        let received = form
        if let webhook, let webhooks {
            try await accept(request, webhook: webhook, trace: trace, owner: owner, webhooks: webhooks) {
                try await GotenbergWebhook.$accepting.withValue(true) { try await body(owner, received) }
            }
            return Response(status: .noContent)
        }
        return try await body(owner, received)
    }

    /// Runs a webhook request's route until its jobs are created, then records what is owed —
    /// the jobs, or the route's refusal, which Gotenberg too sends to the error URL — in the
    /// outbox, where its delivery starts.
    func accept(
        _ request: Request,
        webhook: GotenbergWebhook,
        trace: String,
        owner: String,
        webhooks: WebhookSender,
        route: () async throws -> Response
    ) async throws {
        var envelope = GotenbergWebhook.Envelope(
            webhook: webhook,
            owner: owner,
            trace: trace,
            traceParent: GotenbergJobs.traceParent,
            outputName: GotenbergAnswer.outputName(request.headers[.gotenbergOutputFilename]),
            keep: request.headers[.pdfgateFolder] != nil,
            jobs: []
        )
        do {
            _ = try await route()
            // A route that answers without a file (a read) has nothing to send.
            envelope.refusal = .init(
                status: 400,
                message: "The webhook middleware can only work with multipart/form-data routes that results in output files"
            )
        } catch let accepted as GotenbergAccepted {
            envelope.jobs = accepted.jobs.map { .init(id: $0.job.id, name: $0.plan.name, parts: $0.plan.parts) }
        } catch {
            let refusal = GotenbergError.from(error)
            // Limits and a full store are this request's answer, not the webhook's.
            if [.tooManyRequests, .serviceUnavailable, .insufficientStorage, .contentTooLarge].contains(refusal.status) { throw refusal }
            envelope.refusal = .init(status: refusal.status.code, message: refusal.message)
        }
        let pending: PendingWebhook
        do {
            pending = try GotenbergWebhookDelivery.pending(envelope, now: Date())
            try await webhooks.enqueue(pending)
        } catch {
            // Not recorded: the jobs would run for nobody.
            for planned in envelope.jobs { _ = try? await intake.engine.cancel(planned.id) }
            throw error
        }
        // Gotenberg's synchronous mode: the 204 once the receiver has the result (or the
        // delivery ended otherwise), within the request's time; past it, still owed, delivered on.
        if settings.webhookSync {
            await webhooks.awaitDelivery(pending.messageID, within: settings.timeout ?? .seconds(30))
        }
    }
}
