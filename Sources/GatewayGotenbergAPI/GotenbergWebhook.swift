import Foundation
import GatewayJobModel
import GatewayURLSecurity
import HTTPTypes

extension HTTPField.Name {
    static let gotenbergWebhookURL = Self("Gotenberg-Webhook-Url")!
    static let gotenbergWebhookErrorURL = Self("Gotenberg-Webhook-Error-Url")!
    static let gotenbergWebhookEventsURL = Self("Gotenberg-Webhook-Events-Url")!
    static let gotenbergWebhookMethod = Self("Gotenberg-Webhook-Method")!
    static let gotenbergWebhookErrorMethod = Self("Gotenberg-Webhook-Error-Method")!
    static let gotenbergWebhookExtraHTTPHeaders = Self("Gotenberg-Webhook-Extra-Http-Headers")!
}

/// Gotenberg's webhook mode, asked for by its headers (`pkg/modules/webhook/middleware.go`):
/// the request answers 204 at once, and the result goes to `url` — or the failure, as
/// `{"status", "message"}`, to `errorURL`, and an event to `eventsURL`. Ours is durable: what is
/// owed is in the outbox before the 204 (`GotenbergWebhookDelivery`).
struct GotenbergWebhook: Codable, Sendable, Equatable {
    /// The outbox's message ids of Gotenberg deliveries start so; the rest are `/v1` callbacks.
    static let messagePrefix = "gotenberg_"

    var url: String
    var method: String
    var errorURL: String?
    var errorMethod: String
    var eventsURL: String?
    var extraHeaders: [String: String]

    /// Nil without `Gotenberg-Webhook-Url`. Bad headers are Gotenberg's 400 (its words); a URL
    /// our SSRF rules refuse, its 403.
    static func parse(_ headers: HTTPFields, urlCheck: URLCheck) throws(GotenbergError) -> GotenbergWebhook? {
        guard let url = headers[.gotenbergWebhookURL], !url.isEmpty else { return nil }
        let errorURL = headers[.gotenbergWebhookErrorURL].flatMap { $0.isEmpty ? nil : $0 }
        let eventsURL = headers[.gotenbergWebhookEventsURL].flatMap { $0.isEmpty ? nil : $0 }
        guard errorURL != nil || eventsURL != nil else {
            throw GotenbergError(
                .badRequest,
                "At least one of 'Gotenberg-Webhook-Error-Url' or 'Gotenberg-Webhook-Events-Url' headers must be provided"
            )
        }
        // Each against its own lists, as Gotenberg's `--webhook-error-allow-list` is the error URL's.
        let targets: [(String?, URLPurpose)] = [(url, .webhook), (errorURL, .webhookError), (eventsURL, .webhook)]
        for case let (target?, purpose) in targets {
            guard (try? urlCheck.serving(purpose).checkSyntax(target)) != nil else { throw GotenbergError(.forbidden) }
        }
        func method(_ name: HTTPField.Name) throws(GotenbergError) -> String {
            let method = (headers[name] ?? "").uppercased()
            if method.isEmpty { return "POST" }
            guard ["POST", "PATCH", "PUT"].contains(method) else {
                throw GotenbergError(.badRequest, "Invalid '\(name.rawName)' header value: expected 'POST', 'PATCH' or 'PUT', but got '\(method)'")
            }
            return method
        }
        var extraHeaders: [String: String] = [:]
        if let text = headers[.gotenbergWebhookExtraHTTPHeaders], !text.isEmpty {
            do {
                extraHeaders = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            } catch {
                throw GotenbergError(
                    .badRequest,
                    "Invalid 'Gotenberg-Webhook-Extra-Http-Headers' header value: expected a JSON object of header names to strings"
                )
            }
            // A header that would split the request or smuggle another is not a header.
            if let bad = extraHeaders.first(where: { !Self.isHeader(name: $0.key, value: $0.value) }) {
                throw GotenbergError(.badRequest, "Invalid 'Gotenberg-Webhook-Extra-Http-Headers' header value: '\(bad.key)' is not a valid header")
            }
        }
        return GotenbergWebhook(
            url: url,
            method: try method(.gotenbergWebhookMethod),
            errorURL: errorURL,
            errorMethod: try method(.gotenbergWebhookErrorMethod),
            eventsURL: eventsURL,
            extraHeaders: extraHeaders
        )
    }

    /// An HTTP token as the name, a value without line breaks or NUL.
    static func isHeader(name: String, value: String) -> Bool {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return !name.isEmpty && name.unicodeScalars.allSatisfy(token.contains) && !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
    }

    /// What a delivery owes, recorded as its outbox body: the webhook, whose request it answers,
    /// and its jobs (or the refusal that came before any).
    struct Envelope: Codable, Sendable {
        struct PlannedJob: Codable, Sendable {
            var id: UUID
            var name: String?
            var parts: Bool
        }
        struct Refusal: Codable, Sendable, Error {
            var status: Int
            var message: String
        }
        var webhook: GotenbergWebhook
        var owner: String
        var trace: String
        /// The request's W3C trace, continued by each delivery (nil in records made before it).
        var traceParent: TraceParent?
        var outputName: String?
        /// `Pdfgate-Folder` was sent: the documents stay filed once delivered.
        var keep: Bool
        var jobs: [PlannedJob]
        var refusal: Refusal?
    }

    /// Set by `GotenbergController.receiving` while a webhook request's route runs: its jobs are
    /// created and handed over (`GotenbergAccepted`) instead of waited for.
    @TaskLocal static var accepting = false
}

/// A webhook request's jobs are created: the route stops here and the request answers 204.
struct GotenbergAccepted: Error {
    var jobs: [(job: Job, plan: GotenbergJobs.Planned)]
}
