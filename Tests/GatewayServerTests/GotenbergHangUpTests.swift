import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// A Gotenberg request is answered by a job of our engine that its client waits for: a client
/// that hangs up cancels it, on a live `pdfgate serve`.
@Suite("Gotenberg's requests end with their client")
struct GotenbergHangUpTests {
    @Test("a client that gives up on a slow page cancels the job; the next request is answered in full")
    func hangUpCancels() async throws {
        // A page that answers nothing for half a minute.
        let slow = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(after: .seconds(30), status: 200, text: "late")
        }
        defer { slow.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let impatient = HTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(2), proxy: .direct))
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) {
                _ = try await impatient.execute(
                    HTTPRequest(
                        method: "POST",
                        url: server.baseURL + "/forms/chromium/convert/url",
                        body: .multipart([.text("url", slow.url("/page"))])
                    ),
                    sink: .memory(limit: 1 << 20)
                )
            }
            let client = APIClient(base: server.baseURL)
            var status = ""
            try await eventually("the job ends with its client, not at its deadline; last: \(status)", within: .seconds(20)) {
                let jobs = try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]]
                status = jobs?.first?["status"] as? String ?? ""
                return status == "CANCELLED"
            }
            #expect(ContinuousClock.now - started < .seconds(20))

            // The connection of an answered request closes after it; the answer itself is whole.
            let answered = try await client.send(
                "POST",
                "/forms/pdfengines/merge",
                body: .multipart([
                    MultipartPart(name: "files", value: .file(path: Fixtures.pdf("one-page.pdf"), filename: "a.pdf", contentType: "application/pdf")),
                    MultipartPart(
                        name: "files",
                        value: .file(path: Fixtures.pdf("many-pages.pdf"), filename: "b.pdf", contentType: "application/pdf")
                    ),
                ])
            )
            #expect(answered.status == 200, "\(answered.text.prefix(300))")
            let scratch = TemporaryDirectory("gotenberg-hangup")
            let pdf = scratch.file("merged.pdf")
            try Data(answered.body).write(to: URL(fileURLWithPath: pdf))
            #expect(try await pdfinfoPageCount(pdf) == 13)
        }
    }
}
