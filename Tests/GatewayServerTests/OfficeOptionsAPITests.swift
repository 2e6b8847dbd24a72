import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// LibreOffice's options at create time: wrong ones refused with a stable code and a message
/// naming the key and what it takes, contradictions with 422, and options LibreOffice would never
/// see (a URL job's `pdfa`) refused rather than dropped.
@Suite("office options are checked at create time")
struct OfficeOptionsValidationTests {
    static let cases: [JobOptionsValidationTests.Case] = [
        .init(options: #"{"quality": 0}"#, status: .badRequest, code: "invalid_options", mentions: ["options.quality", "1 to 100"]),
        .init(options: #"{"quality": 101}"#, status: .badRequest, code: "invalid_options", mentions: ["options.quality", "1 to 100"]),
        .init(options: #"{"quality": 50.5}"#, status: .badRequest, code: "invalid_options", mentions: ["options.quality", "whole number"]),
        .init(
            options: #"{"max_image_resolution": 200}"#,
            status: .badRequest,
            code: "invalid_options",
            mentions: ["max_image_resolution", "75, 150, 300, 600, 1200"]
        ),
        .init(
            options: #"{"pdfa": "PDF/A-4"}"#,
            status: .badRequest,
            code: "invalid_options",
            mentions: ["options.pdfa", "PDF/A-1b", "PDF/A-3b", "PDF/A-4"]
        ),
        .init(options: #"{"pdfua": "yes"}"#, status: .badRequest, code: "invalid_options", mentions: ["options.pdfua", "true or false"]),
        .init(
            options: #"{"export_bookmark": true}"#,
            status: .badRequest,
            code: "unknown_option",
            mentions: ["export_bookmark", "export_bookmarks"]
        ),
        .init(
            options: #"{"lossless_image_compression": true, "quality": 80}"#,
            status: .unprocessableContent,
            code: "conflicting_options",
            mentions: ["quality", "lossless_image_compression"]
        ),
        .init(
            options: #"{"reduce_image_resolution": false, "max_image_resolution": 150}"#,
            status: .unprocessableContent,
            code: "conflicting_options",
            mentions: ["max_image_resolution", "reduce_image_resolution"]
        ),
    ]

    @Test("a JSON office create with bad options is refused and nothing is stored", arguments: cases)
    func jsonCreate(_ bad: JobOptionsValidationTests.Case) async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let options = try JSONSerialization.jsonObject(with: Data(bad.options.utf8))
            let answer = try await client.send(
                .post,
                "/v1/jobs",
                json: ["type": "DOC_TO_PDF", "original_filename": "report.docx", "options": options]
            )
            #expect(answer.status == bad.status && answer.error.code == bad.code, "\(answer.status) \(answer.json)")
            for word in bad.mentions { #expect(answer.error.message?.contains(word) == true, "mentions \(word): \(answer.json)") }
            let listed = try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]
            #expect(listed?.isEmpty == true, "nothing was filed: \(String(describing: listed))")
        }
    }

    @Test("LibreOffice's options on a job LibreOffice never sees are refused, naming who converts it")
    func officeOptionsOnOtherJobs() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let url = try await client.send(
                .post,
                "/v1/jobs",
                json: ["type": "URL_TO_PDF", "url": "https://example.com/", "options": ["pdfa": "PDF/A-2b"]]
            )
            #expect(url.status == .unprocessableContent && url.error.code == "conflicting_options", "\(url.json)")
            for word in ["options.pdfa", "Chromium", "operations"] { #expect(url.error.message?.contains(word) == true, "\(url.json)") }

            let html = try await client.send(.post, "/v1/jobs?filename=a.html&quality=80", bytes: Array("<p>x</p>".utf8), contentType: "text/html")
            #expect(html.status == .unprocessableContent && html.error.code == "conflicting_options", "\(html.json)")
            #expect(html.error.message?.contains(".html") == true, "\(html.json)")

            // Shared options stay welcome everywhere.
            let shared = try await client.send(
                .post,
                "/v1/jobs",
                json: ["type": "URL_TO_PDF", "url": "https://example.com/", "options": ["landscape": true, "page_ranges": "1"]]
            )
            #expect(shared.status == .created, "\(shared.json)")
        }
    }

    @Test("good office options, as JSON or one-shot fields, are taken and shown on the job")
    func goodOptionsAreKept() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let options: [String: Any] = [
                "page_ranges": "1-2", "landscape": true, "export_form_fields": false, "export_bookmarks": true, "export_notes": true,
                "export_notes_pages": false, "quality": 70, "max_image_resolution": 150, "single_page_sheets": true, "pdfa": "pdf/a-3b",
                "pdfua": true,
            ]
            let created = try await client.send(.post, "/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx", "options": options])
            #expect(created.status == .created, "\(created.json)")
            let shown = created.json["options"] as? [String: Any]
            #expect(shown?["quality"] as? Int == 70 && shown?["max_image_resolution"] as? Int == 150, "\(created.json)")
            #expect(shown?["pdfa"] as? String == "PDF/A-3b", "spelled as Gotenberg spells it: \(created.json)")
            #expect(shown?["export_form_fields"] as? Bool == false && shown?["pdfua"] as? Bool == true)

            let oneShot = try await client.send(
                .post,
                "/v1/jobs?filename=a.docx&quality=90&lossless_image_compression=false&pdfa=PDF/A-1b&single_page_sheets=true",
                bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.docx")))),
                contentType: "application/octet-stream"
            )
            #expect(oneShot.status == .created || oneShot.status == .accepted, "\(oneShot.status) \(oneShot.json)")
            let fields = oneShot.json["options"] as? [String: Any]
            #expect(fields?["quality"] as? Int == 90 && fields?["pdfa"] as? String == "PDF/A-1b", "\(oneShot.json)")
        }
    }
}
