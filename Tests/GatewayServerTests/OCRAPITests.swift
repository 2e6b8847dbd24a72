import Foundation
import GatewayTestSupport
import Testing

/// `ocr` through a real `pdfgate serve`: a scanned document in the library gets its text layer
/// by `POST /v1/documents/{id}/operations`, and what cannot work is refused at create.
@Suite("OCR through the API", .serialized, .timeLimit(.minutes(5)))
struct OCRAPITests {
    /// Polls the job of `created` until it ends (OCR takes seconds a page).
    static func finished(_ client: APIClient, _ created: APIClient.Answer) async throws -> APIClient.Answer {
        let id = try #require(created.string("job_id"), "create: \(created.status) \(created.text)")
        return try await client.ended(id, within: .seconds(120))
    }

    @Test func aScannedDocumentBecomesSearchableAndBadLanguagesAreRefused() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        try await using(server) { server in
            let uploaded = try await Self.finished(
                client,
                try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=scan.pdf", try await ScanFixtures.file("scan.pdf"))
            )
            let id = try #require(uploaded.string("document_id"), "\(uploaded.text)")
            #expect(
                try await run("pdftotext", [try PDFOperationsTests.file(server, uploaded.json["document"] as? [String: Any]), "-"]).stdout
                    .allSatisfy(\.isWhitespace)
            )

            let missing = try await client.post(
                "/v1/documents/\(id)/operations",
                json: ["operations": [["op": "ocr", "languages": ["eng", "xyz"]]]]
            )
            #expect(missing.status == 422 && missing.string("error") == "ocr_language_unavailable", "\(missing.text)")
            #expect(missing.string("error_message")?.contains("tesseract-ocr-xyz") == true, "\(missing.text)")
            let bad = try await client.post("/v1/documents/\(id)/operations", json: ["operations": [["op": "ocr", "languages": ["../eng"]]]])
            #expect(bad.status == 400 && bad.string("error") == "invalid_ocr_language", "\(bad.text)")

            let created = try await client.post(
                "/v1/documents/\(id)/operations",
                json: ["operations": [["op": "ocr", "languages": ["eng", "deu"]]], "replace_original": true, "timeout_seconds": 240]
            )
            let job = try await Self.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let path = try PDFOperationsTests.file(server, job.json["document"] as? [String: Any])
            var rate = WordErrorRate(errors: 0, words: 0)
            for page in 1...2 {
                let text = try await run("pdftotext", ["-raw", "-f", "\(page)", "-l", "\(page)", path, "-"]).stdout
                rate = rate + WordErrorRate(reference: try await ScanFixtures.text(page), hypothesis: text)
            }
            #expect(rate.rate < 0.02, "\(rate.errors) of \(rate.words) words wrong")

            // Found by what its pages say, once the indexer has read the new text: words of each
            // page's ground truth, each on its page.
            try await eventually("the indexer read the OCRed text", poll: .milliseconds(100)) {
                let answer = try await client.get("/v1/documents?q=\(id.prefix(1))*")
                return (answer.json["search"] as? [String: Any])?["pending"] as? Int == 0
            }
            var found = 0
            var asked: [String] = []
            for page in 1...2 {
                let words = try await ScanFixtures.text(page).split(whereSeparator: { !$0.isLetter }).map(String.init)
                for word in Array(Set(words.filter { $0.count >= 7 })).sorted().prefix(8) {
                    asked.append(word)
                    let answer = try await client.get("/v1/documents?q=\(word.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
                    let hits = answer.json["hits"] as? [[String: Any]] ?? []
                    if hits.contains(where: { $0["document_id"] as? String == id && $0["page"] as? Int == page }) { found += 1 }
                }
            }
            #expect(found == asked.count, "\(found) of \(asked.count) words found on their page: \(asked)")
            let ready = try await client.get("/readyz")
            let tesseract = (ready.json["checks"] as? [String: Any])?["local.tesseract"] as? [String: Any]
            #expect(tesseract?["ok"] as? Bool == true && (tesseract?["message"] as? String)?.contains("deu") == true, "\(ready.text)")
        }
    }
}
