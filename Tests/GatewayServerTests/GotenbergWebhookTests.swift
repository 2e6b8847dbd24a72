import Foundation
import GatewayAssembly
import GatewayHTTPClient
import GatewayLibraryModel
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer

/// Gotenberg's webhook mode: 204 at once, then the file to the webhook URL (method, extra
/// headers, trace), the failure to the error URL, the event to the events URL — from our outbox,
/// signed, and on after a restart.
@Suite("Gotenberg's webhooks")
struct GotenbergWebhookTests {
    /// What a receiver got.
    struct Received: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
        /// What the receiver answered.
        var status = 200
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// A receiver on loopback that answers `status()` and records every request.
    static func receiver(_ seen: Locked<[Received]>, status: @escaping @Sendable () -> Int = { 200 }) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request, response in
            let body = try request.readBody()
            let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
            let answer = status()
            seen.update { $0.append(Received(method: request.method, path: request.path, headers: headers, body: body, status: answer)) }
            try response.respond(status: answer)
        }
    }

    static let secret = "whsec_" + Data("a webhook secret of the tests".utf8).base64EncodedString()

    /// A gateway that may reach `receiver` and signs with `secret`; `synchronous`: Gotenberg's sync mode.
    static func gateway(reaching receiver: LoopbackHTTPServer, synchronous: Bool = false) async throws -> InProcessGateway {
        try await InProcessGateway {
            $0.urlAllowList = ["127.0.0.1:\(receiver.port)"]
            $0.webhookSecret = Self.secret
            $0.gotenbergWebhookSync = synchronous
        }
    }

    @Test("the PDF goes to the webhook URL with the method, extra headers and trace, signed; the event follows; nothing is kept")
    func success() async throws {
        let seen = Locked<[Received]>([])
        let receiver = try Self.receiver(seen)
        defer { receiver.stop() }
        let gateway = try await Self.gateway(reaching: receiver)
        let library = gateway.server.assembly.library
        try await gateway.run(converting: true) { client in
            let answer = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/flatten",
                [.file("files", path: Fixtures.pdf("many-pages.pdf"))],
                headers: [
                    .gotenbergWebhookURL: receiver.url("/webhook"), .gotenbergWebhookErrorURL: receiver.url("/webhook/error"),
                    .gotenbergWebhookEventsURL: receiver.url("/webhook/events"), .gotenbergWebhookMethod: "put",
                    .gotenbergWebhookExtraHTTPHeaders: #"{"X-Foo":"bar","Content-Disposition":"inline"}"#,
                    .gotenbergTrace: "trace-hook", .gotenbergOutputFilename: "flat",
                ]
            )
            #expect(answer.status == .noContent && answer.body.readableBytes == 0, "\(answer.status) \(String(buffer: answer.body))")
            #expect(answer.headers[.gotenbergTrace] == "trace-hook")
            try await eventually("the event reaches the events URL", within: .seconds(60)) { seen.value.contains { $0.path == "/webhook/events" } }
            let file = try #require(seen.value.first { $0.path == "/webhook" })
            #expect(file.method == "PUT")
            #expect(file.header("Content-Type") == "application/pdf" && file.header("X-Foo") == "bar")
            #expect(file.header("Content-Disposition") == "inline", "the extra header wins, as in Gotenberg")
            #expect(file.header("Gotenberg-Trace") == "trace-hook")
            let scratch = TemporaryDirectory("gotenberg-webhook")
            let pdf = scratch.file("hook.pdf")
            try Data(file.body).write(to: URL(fileURLWithPath: pdf))
            #expect(try await pdfinfoPageCount(pdf) == 12)
            let id = try #require(file.header("webhook-id"))
            let timestamp = Int64(file.header("webhook-timestamp") ?? "") ?? 0
            #expect(
                WebhookSigner(secret: Self.secret).verify(
                    id: id,
                    timestamp: timestamp,
                    body: Data(file.body),
                    header: file.header("webhook-signature") ?? ""
                ),
                "signed as Standard Webhooks, over the PDF"
            )
            let event = try #require(seen.value.first { $0.path == "/webhook/events" })
            let json = try JSONSerialization.jsonObject(with: Data(event.body)) as? [String: Any]
            #expect(
                json?["event"] as? String == "webhook.success" && json?["correlationId"] as? String == "trace-hook",
                "\(String(describing: json))"
            )
            #expect(!seen.value.contains { $0.path == "/webhook/error" })
            // A job of the engine like any other, its document gone once delivered.
            try await eventually("the library is empty again", within: .seconds(60)) {
                (try? await library.listDocuments(DocumentQuery(owner: "default", recursive: true)).documents.count) == 0
            }
            let jobs = try await client.execute(uri: "/v1/jobs", method: .get).json["jobs"] as? [[String: Any]]
            #expect(jobs?.first?["status"] as? String == "SUCCEEDED")
        }
    }

    @Test("synchronous mode (WEBHOOK_ENABLE_SYNC_MODE): the 204 comes once the receiver has the PDF and the event")
    func synchronous() async throws {
        let seen = Locked<[Received]>([])
        let receiver = try Self.receiver(seen)
        defer { receiver.stop() }
        let gateway = try await Self.gateway(reaching: receiver, synchronous: true)
        try await gateway.run(converting: true) { client in
            let answer = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/flatten",
                [.file("files", path: Fixtures.pdf("one-page.pdf"))],
                headers: [.gotenbergWebhookURL: receiver.url("/webhook"), .gotenbergWebhookEventsURL: receiver.url("/webhook/events")]
            )
            #expect(answer.status == .noContent)
            // Already there when the answer comes: nothing to wait for.
            let paths = seen.value.map(\.path)
            #expect(paths.contains("/webhook") && paths.contains("/webhook/events"), "\(paths)")
            #expect(seen.value.first { $0.path == "/webhook" }?.header("Content-Type") == "application/pdf")
        }
    }

    @Test("a route's refusal goes to the error URL as Gotenberg's JSON, and the event says so; bad webhook headers are answered at once")
    func failures() async throws {
        let seen = Locked<[Received]>([])
        let receiver = try Self.receiver(seen)
        defer { receiver.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(receiver.port)"] }
        try await gateway.run(converting: true) { client in
            let hook: HTTPFields = [
                .gotenbergWebhookURL: receiver.url("/webhook"), .gotenbergWebhookErrorURL: receiver.url("/webhook/error"),
                .gotenbergWebhookEventsURL: receiver.url("/webhook/events"), .gotenbergWebhookErrorMethod: "PATCH",
            ]
            let answer = try await GotenbergAPITests.post(client, "/forms/pdfengines/flatten", [], headers: hook)
            #expect(answer.status == .noContent, "\(String(buffer: answer.body))")
            try await eventually("the event reaches the events URL", within: .seconds(60)) { seen.value.contains { $0.path == "/webhook/events" } }
            let error = try #require(seen.value.first { $0.path == "/webhook/error" })
            #expect(error.method == "PATCH" && error.header("Content-Type") == "application/json")
            let body = try JSONSerialization.jsonObject(with: Data(error.body)) as? [String: Any]
            #expect(body?["status"] as? Int == 400, "\(String(describing: body))")
            #expect(body?["message"] as? String == "Invalid form data: no form file found for extensions: [.pdf]")
            let event =
                try JSONSerialization.jsonObject(with: Data(try #require(seen.value.first { $0.path == "/webhook/events" }).body)) as? [String: Any]
            #expect(event?["event"] as? String == "webhook.error" && (event?["error"] as? [String: Any])?["status"] as? Int == 400)
            #expect(!seen.value.contains { $0.path == "/webhook" })

            let pdf: [FormPart] = [.file("files", path: Fixtures.pdf("one-page.pdf"))]
            let noErrorURL = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/flatten",
                pdf,
                headers: [.gotenbergWebhookURL: receiver.url("/w")]
            )
            #expect(noErrorURL.status == .badRequest)
            #expect(
                String(buffer: noErrorURL.body)
                    == "At least one of 'Gotenberg-Webhook-Error-Url' or 'Gotenberg-Webhook-Events-Url' headers must be provided"
            )
            var get = hook
            get[.gotenbergWebhookMethod] = "get"
            let method = try await GotenbergAPITests.post(client, "/forms/pdfengines/flatten", pdf, headers: get)
            #expect(
                String(buffer: method.body) == "Invalid 'Gotenberg-Webhook-Method' header value: expected 'POST', 'PATCH' or 'PUT', but got 'GET'"
            )
            var extra = hook
            extra[.gotenbergWebhookExtraHTTPHeaders] = #"{"X-Bad\r\nInjected":"1"}"#
            let smuggled = try await GotenbergAPITests.post(client, "/forms/pdfengines/flatten", pdf, headers: extra)
            #expect(smuggled.status == .badRequest, "\(String(buffer: smuggled.body))")
            var elsewhere = hook
            elsewhere[.gotenbergWebhookURL] = "http://169.254.169.254/latest"
            let metadata = try await GotenbergAPITests.post(client, "/forms/pdfengines/flatten", pdf, headers: elsewhere)
            #expect(metadata.status == .forbidden && String(buffer: metadata.body) == "Forbidden")
        }
    }

    @Test("a webhook owed when the server stops is delivered after the restart: the jobs finish, the file arrives")
    func survivesARestart() async throws {
        let accepting = Locked(false)
        let seen = Locked<[Received]>([])
        let receiver = try Self.receiver(seen) { accepting.value ? 200 : 503 }
        defer { receiver.stop() }
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-gotenberg-hooks-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: store) }
        let server = try await ServerProcess(store: store, arguments: ["--allow-host", "127.0.0.1"])
        let client = APIClient(base: server.baseURL)
        let form: [MultipartPart] = [
            MultipartPart(name: "files", value: .file(path: Fixtures.pdf("one-page.pdf"), filename: "one-page.pdf", contentType: "application/pdf"))
        ]
        let answer = try await client.send(
            "POST",
            "/forms/pdfengines/rotate",
            body: .multipart(form + [.text("rotateAngle", "90")]),
            headers: [("Gotenberg-Webhook-Url", receiver.url("/webhook")), ("Gotenberg-Webhook-Error-Url", receiver.url("/error"))]
        )
        #expect(answer.status == 204, "\(answer.text)")
        try await eventually("a delivery reaches the receiver", within: .seconds(60)) { !seen.value.isEmpty }
        #expect(
            seen.value.allSatisfy { $0.path == "/webhook" },
            "a receiver that is down is retried, not given the error: \(seen.value.map { "\($0.path) \(String(decoding: $0.body.prefix(200), as: UTF8.self))" })"
        )
        await server.stop()

        accepting.update { $0 = true }
        try await using(await ServerProcess(store: store, arguments: ["--allow-host", "127.0.0.1"])) { restarted in
            try await eventually("a delivery is accepted", within: .seconds(60)) { seen.value.contains { $0.status == 200 } }
            let delivered = try #require(seen.value.first { $0.status == 200 }, "delivered after the restart")
            #expect(delivered.path == "/webhook" && delivered.header("Content-Type") == "application/pdf")
            #expect(delivered.header("webhook-id") == seen.value.first?.header("webhook-id"), "one message across the restart")
            let scratch = TemporaryDirectory("gotenberg-webhook")
            let pdf = scratch.file("rotated.pdf")
            try Data(delivered.body).write(to: URL(fileURLWithPath: pdf))
            let info = try await run("/usr/bin/pdfinfo", ["-f", "1", "-l", "1", pdf]).stdout
            #expect(info.firstMatch(of: /rot:\s+90/) != nil, "\(info)")
        }
    }
}
