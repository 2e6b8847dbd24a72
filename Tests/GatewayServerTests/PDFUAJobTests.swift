import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// `pdfua` through a real `pdfgate serve`: on a library document, and as the last step of a
/// conversion job, each result read back with `pdfinfo`.
@Suite("pdfua in jobs", .serialized)
struct PDFUAJobTests {
    @Test func aLibraryDocumentAndAConvertedOneEndPDFUA() async throws {
        let (server, client, _, one) = try await PDFOperationsTests.library()
        try await using(server) { server in
            let job = try await PDFOperationsTests.operations(client, on: one, ["name": "Accessible", "operations": [["op": "pdfua"]]])
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let path = try PDFOperationsTests.file(server, job.json["document"] as? [String: Any])
            let info = try await PDFOperationsTests.pdfinfo(path)
            #expect(info.contains("Tagged:          yes") && info.contains("Title:           One Page Fixture"), "\(info)")
            let xmp = try await PDFOperationsTests.pdfinfo(path, ["-meta"])
            #expect(xmp.contains("<pdfuaid:part>1</pdfuaid:part>"), "\(xmp)")

            // A conversion ends with it as with pdfa: an office file, PDF/UA and PDF/A-2b.
            let converted = try await PDFOperationsTests.finished(
                client,
                try await PDFOperationsTests.oneShot(
                    client,
                    "/v1/jobs?filename=sample.docx&operations=%5B%7B%22op%22%3A%22pdfua%22%2C%22part%22%3A%222b%22%7D%5D",
                    Fixtures.office("sample.docx")
                )
            )
            #expect(converted.string("status") == "SUCCEEDED", "\(converted.text)")
            let document = converted.json["document"] as? [String: Any]
            #expect((document?["metadata"] as? [String: Any])?["pdfa"] as? String == "2B", "\(converted.text)")
            let file = try PDFOperationsTests.file(server, document)
            let meta = try await PDFOperationsTests.pdfinfo(file, ["-meta"])
            #expect(meta.contains("<pdfuaid:part>1</pdfuaid:part>") && meta.contains("<pdfaid:part>2</pdfaid:part>"), "\(meta)")
            #expect(try await PDFOperationsTests.pdfinfo(file).contains("Tagged:          yes"))
        }
    }

    @Test func aContradictoryOrderIsRefusedBeforeAnythingRuns() async throws {
        let (server, client, twelve, _) = try await PDFOperationsTests.library()
        try await using(server) { _ in
            let answer = try await client.post(
                "/v1/documents/\(twelve)/operations",
                json: ["operations": [["op": "pdfua"], ["op": "rotate", "angle": 90]]]
            )
            #expect(answer.status == 422 && answer.string("error") == "contradictory_operations", "\(answer.text)")
            #expect(answer.string("error_message")?.contains("pdfua must come after rotate") == true, "\(answer.text)")
        }
    }
}
