import Foundation
import GatewayTestSupport
import Testing

/// Conversion options in a one-shot create reach the converter (the refusals of a create, 415
/// and 405 go through the router in-process: `RouterAPITests`).
@Suite("Request shape: one-shot options")
struct RequestShapeTests {
    @Test("one-shot creates carry conversion options, as query fields or as an options form part")
    func oneShotOptionsReachTheConverter() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        // Raw body: options as query parameters. 4 × 6 in is 288 × 432 pt.
        let raw = try await client.send(
            "POST",
            "/v1/jobs?filename=card.html&paper_width=4&paper_height=6&margin=0.2",
            body: .file(path: Fixtures.office("sample.html")),
            headers: [("Content-Type", "text/html")]
        )
        #expect(raw.status == 201, "\(raw.text)")
        #expect((raw.json["options"] as? [String: Any])?["paper_width"] as? Double == 4, "the job shows its options: \(raw.text)")
        // Multipart: the same JSON object as the JSON create, in an `options` part.
        let form = try await client.send(
            "POST",
            "/v1/jobs",
            body: .multipart([
                .text("options", #"{"paper_width": 6, "paper_height": 4}"#), .file("file", path: Fixtures.office("sample.html")),
            ])
        )
        #expect(form.status == 201, "\(form.text)")
        for (answer, size) in [(raw, (288.0, 432.0)), (form, (432.0, 288.0))] {
            let job = try await JobAPITests.finish(client, try #require(answer.string("job_id")))
            let metadata = (job["document"] as? [String: Any])?["metadata"] as? [String: Any]
            let width = try #require(metadata?["page_width"] as? Double, "\(job)")
            let height = try #require(metadata?["page_height"] as? Double)
            #expect(abs(width - size.0) < 1 && abs(height - size.1) < 1, "page is \(width) × \(height) pt, asked \(size)")
        }

        let badOption = try await client.send(
            "POST",
            "/v1/jobs?filename=card.html&landscape=sideways",
            body: .file(path: Fixtures.office("sample.html")),
            headers: [("Content-Type", "text/html")]
        )
        #expect(badOption.status == 400 && badOption.string("error") == "invalid_options", "\(badOption.text)")
        #expect(badOption.string("error_message")?.contains("landscape") == true)
        await server.stop()
    }
}
