import Foundation
import GatewayTestSupport
import Testing

/// A `gateway` backend whose peer runs with tokens: the token comes from the environment (or
/// the file), goes to the peer as a bearer token, and without it the job fails saying so.
@Suite("Gateway backend with a token")
struct GatewayTokenTests {
    @Test("the front gateway sends PDFGATE_GATEWAY_TOKEN to a peer that requires tokens")
    func frontAuthenticatesToItsPeer() async throws {
        let backStore = FileManager.default.temporaryDirectory.path + "/pdfgate-back-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: backStore, withIntermediateDirectories: true)
        let token = try await OwnerIsolationTests.token(backStore, owner: "front")
        let back = try await ServerProcess(store: backStore, arguments: ["--auth", "tokens"])
        let front = try await ServerProcess(
            arguments: ["--routes", "DOC_TO_PDF=gateway=\(back.baseURL)"],
            environment: ["PDFGATE_GATEWAY_TOKEN": token]
        )
        let (pdf, job) = try await MobileProtocolTests.convertLikeTheApp(
            APIClient(base: front.baseURL),
            file: Fixtures.office("sample.odt"),
            into: front.store
        )
        let document = try #require(job["document"] as? [String: Any])
        #expect(try await pdfinfoPageCount(pdf) == document["page_count"] as? Int)
        // The back server ran it for the token's owner.
        let backJobs = try await APIClient(base: back.baseURL, token: token).get("/v1/jobs?status=SUCCEEDED")
        #expect((backJobs.json["jobs"] as? [Any])?.count == 1, "the peer ran the job for its token's owner: \(backJobs.text)")

        // Without the token the peer answers 401, and the job fails at once with that reason.
        let tokenless = try await ServerProcess(arguments: ["--routes", "DOC_TO_PDF=gateway=\(back.baseURL)"])
        let client = APIClient(base: tokenless.baseURL)
        let created = try await client.oneShot("sample.odt")
        let id = try #require(created.string("job_id"), "one-shot create: \(created.text)")
        let answer = try await client.ended(id, within: .seconds(30))
        #expect(answer.string("status") == "FAILED")
        #expect(answer.string("error_message")?.contains("401") == true, "the failure names the refusal: \(answer.text)")
        await tokenless.stop()
        await front.stop()
        await back.stop()
    }
}
