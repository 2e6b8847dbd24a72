import Foundation
import GatewayAssembly
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing
import ZIPFoundation

@testable import GatewayGotenbergAPI
@testable import GatewayServer
@testable import GatewaySettings

/// Gotenberg's `downloadFrom`: files fetched under our SSRF rules join the form.
@Suite("Gotenberg's downloadFrom")
struct GotenbergDownloadFromTests {
    @Test("listed files are fetched as inputs or embeds; a bad status, a missing name, a refused URL are Gotenberg's refusals")
    func downloads() async throws {
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf"))))
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            switch request.path {
            case "/report.pdf":
                #expect(request.header("X-Token") == "abc", "the entry's extra headers are sent")
                try response.respond(
                    status: 200,
                    headers: [("Content-Type", "application/pdf"), ("Content-Disposition", #"attachment; filename="report.pdf""#)],
                    body: pdf
                )
            case "/invoice.xml":
                try response.respond(status: 200, headers: [("Content-Disposition", #"attachment; filename="invoice.xml""#)], text: "<Invoice/>")
            case "/nameless": try response.respond(status: 200, text: "x")
            default: try response.respond(status: 404)
            }
        }
        defer { served.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(served.port)"] }
        let scratch = TemporaryDirectory("gotenberg-downloads")
        try await gateway.run(converting: true) { client in
            let list = """
                [{"url":"\(served.url("/report.pdf"))","extraHttpHeaders":{"X-Token":"abc"}},{"url":"\(served.url("/invoice.xml"))","embedded":true}]
                """
            let merged = try await GotenbergPDFEnginesTests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", list)]
            )
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let path = scratch.file("merged.pdf")
            try Data(merged.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            #expect(try await pdfinfoPageCount(path) == 13, "one uploaded page and the twelve downloaded")
            #expect(try await run("/usr/bin/pdfdetach", ["-list", path]).stdout.contains("invoice.xml"), "the embedded download is attached")

            func refusal(_ list: String) async throws -> (HTTPResponse.Status, String) {
                let answer = try await GotenbergPDFEnginesTests.post(
                    client,
                    "/forms/pdfengines/merge",
                    [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", list)]
                )
                return (answer.status, String(buffer: answer.body))
            }
            let missing = try await refusal(#"[{"url":"\#(served.url("/gone.pdf"))"}]"#)
            #expect(missing == (.badRequest, "Unable to download file from '\(served.url("/gone.pdf"))': got status: '404'"), "\(missing)")
            let nameless = try await refusal(#"[{"url":"\#(served.url("/nameless"))"}]"#)
            #expect(nameless == (.badRequest, "No 'Content-Disposition' header from '\(served.url("/nameless"))'"), "\(nameless)")
            let refused = try await refusal(#"[{"url":"http://127.0.0.1:9/secret.pdf"}]"#)
            #expect(refused.0 == .forbidden, "\(refused)")
            let empty = try await refusal(#"[{"url":" "}]"#)
            #expect(empty == (.badRequest, "Invalid 'downloadFrom' form field entry 0: URL must be set"), "\(empty)")
            let garbage = try await refusal("{nope")
            #expect(garbage.0 == .badRequest && garbage.1.hasPrefix("Invalid 'downloadFrom' form field value"), "\(garbage)")
        }
    }

    @Test("the operator's deny and only patterns hold for downloads, webhooks and /v1 URL jobs alike, allowed hosts included")
    func operatorPatterns() async throws {
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Disposition", #"attachment; filename="a.pdf""#)], text: "%PDF")
        }
        defer { served.stop() }
        let loaded = try ServerConfiguration.load(file: nil, environment: ["PDFGATE_DENY_URLS": "/private/\n\\.exe$"])
        #expect(loaded.urlPatterns.deny == ["/private/", "\\.exe$"])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["PDFGATE_ONLY_URLS": "[a-"]) }
        let gateway = try await InProcessGateway {
            $0.urlAllowList = ["127.0.0.1:\(served.port)"]
            $0.urlPatterns = loaded.urlPatterns
        }
        try await gateway.run { client in
            let download = try await GotenbergPDFEnginesTests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", #"[{"url":"\#(served.url("/private/a.pdf"))"}]"#)]
            )
            #expect(download.status == .forbidden, "Gotenberg's answer to a denied URL: \(String(buffer: download.body))")
            let webhook = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf"))],
                headers: [.gotenbergWebhookURL: served.url("/private/hook"), .gotenbergWebhookErrorURL: served.url("/errors")]
            )
            #expect(webhook.status == .forbidden)
            let job = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"URL_TO_PDF","url":"\#(served.url("/setup.exe"))"}"#)
            )
            #expect(job.status == .unprocessableContent && job.json["error"] as? String == "url_forbidden", "\(job.json)")
            #expect((job.json["error_message"] as? String)?.contains("deny pattern '\\.exe$'") == true, "\(job.json)")
        }
    }
}
