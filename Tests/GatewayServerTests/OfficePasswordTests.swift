import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// A protected office document converted by a real `pdfgate serve` with its password: the
/// password opens it and goes nowhere else — not the job, not the database, not the log.
@Suite("office passwords", .serialized)
struct OfficePasswordTests {
    @Test func aProtectedDocumentConvertsWithItsPasswordWhichIsKeptNowhere() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let password = "secret"  // scripts/make-fixtures.sh

            let opened = try await PDFOperationsTests.finished(
                client,
                try await client.send(
                    "POST",
                    "/v1/jobs?filename=protected.docx&password=\(password)",
                    body: .file(path: Fixtures.office("protected.docx")),
                    headers: [("Content-Type", "application/octet-stream")]
                )
            )
            #expect(opened.string("status") == "SUCCEEDED", "\(opened.text)")
            #expect((opened.json["document"] as? [String: Any])?["page_count"] as? Int == 2, "\(opened.text)")
            #expect(!opened.text.contains(password))

            let wrong = "not-the-pass-4711"
            // A JSON create keeps its password beside the upload it waits for, not in its row.
            let pending = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "protected.docx", "password": wrong])
            #expect(pending.string("status") == "CREATED" && !pending.text.contains(wrong), "\(pending.text)")

            let missing = try await PDFOperationsTests.finished(
                client,
                try await client.send(
                    "POST",
                    "/v1/jobs?filename=protected.docx",
                    body: .file(path: Fixtures.office("protected.docx")),
                    headers: [("Content-Type", "application/octet-stream")]
                )
            )
            #expect(missing.string("status") == "FAILED" && missing.string("error") == "password_protected", "\(missing.text)")

            let mistaken = try await PDFOperationsTests.finished(
                client,
                try await client.send(
                    "POST",
                    "/v1/jobs?filename=protected.docx&password=\(wrong)",
                    body: .file(path: Fixtures.office("protected.docx")),
                    headers: [("Content-Type", "application/octet-stream")]
                )
            )
            #expect(mistaken.string("status") == "FAILED" && mistaken.string("error") == "wrong_password", "\(mistaken.text)")
            #expect(!mistaken.text.contains(wrong))

            for id in [opened, missing, mistaken].compactMap({ $0.string("job_id") }) {
                let shown = try await client.get("/v1/jobs/\(id)")
                #expect(!shown.text.contains(password) && !shown.text.contains(wrong), "\(shown.text)")
            }
            let database = try FileManager.default.contentsOfDirectory(atPath: server.store + "/.pdfgate").filter { $0.hasPrefix("gateway.sqlite") }
            #expect(!database.isEmpty)
            for name in database {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: server.store + "/.pdfgate/" + name))
                #expect(bytes.range(of: Data(wrong.utf8)) == nil, "\(name) holds the password")
            }
            let log = server.log
            #expect(!log.contains(wrong) && !log.contains("password=\(password)"), "the server's log holds a password")
        }
    }
}
