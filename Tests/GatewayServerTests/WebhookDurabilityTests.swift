import Foundation
import GatewayTestSupport
import Testing

/// A webhook still owed when the server stops is delivered by the next start: same
/// `webhook-id`, same signed body.
@Suite("Webhooks survive a restart")
struct WebhookDurabilityTests {
    @Test("a receiver that is down until after a restart still gets the job's webhook, under the same id")
    func aPendingDeliveryResumesAfterARestart() async throws {
        let accepting = Locked(false)
        let seen = Locked<[(id: String, status: Int, body: [UInt8])]>([])
        let receiver = try LoopbackHTTPServer { request, response in
            let body = try request.readBody()
            let status = accepting.value ? 204 : 503
            seen.update { $0.append((request.header("webhook-id") ?? "", status, body)) }
            try response.respond(status: status)
        }
        defer { receiver.stop() }
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-hooks-\(UUID().uuidString.prefix(8))"
        let server = try await ServerProcess(store: store, arguments: ["--allow-host", "127.0.0.1"])
        let client = APIClient(base: server.baseURL)
        let callback = receiver.url("/hook").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let created = try await client.oneShot("sample.docx", query: "&callback_url=" + callback)
        let jobID = try #require(created.string("job_id"), "\(created.text)")
        _ = try await JobAPITests.finish(client, jobID)
        try await eventually("a delivery reaches the receiver", within: .seconds(20)) { !seen.value.isEmpty }
        #expect(seen.value.allSatisfy { $0.status == 503 }, "the receiver was down so far")
        await server.stop()

        accepting.update { $0 = true }
        // At info, so its log says when it has read the receiver's answer.
        let restarted = try await ServerProcess(store: store, arguments: ["--allow-host", "127.0.0.1", "--log-level", "info"])
        try await eventually("the restarted server delivers", within: .seconds(20)) { seen.value.contains { $0.status == 204 } }
        let attempts = seen.value
        let delivered = try #require(attempts.first { $0.status == 204 })
        #expect(delivered.id == attempts[0].id && delivered.id.contains(jobID), "one message id across the restart: \(attempts.map(\.id))")
        #expect(delivered.body == attempts[0].body, "the same payload")
        let payload = try JSONSerialization.jsonObject(with: Data(delivered.body)) as? [String: Any]
        #expect((payload?["data"] as? [String: Any])?["job_id"] as? String == jobID)
        // Delivered means done: a further restart sends nothing again. (The receiver counts
        // the 204 before the server has read it; a stop before then may rightly send it again.)
        try await eventually("the server reads the 204", within: .seconds(10)) { restarted.log.contains("webhook.delivered") }
        await restarted.stop()
        let count = seen.value.count
        let again = try await ServerProcess(store: store, arguments: ["--allow-host", "127.0.0.1"])
        try await keepsHolding("nothing owed after the delivery", for: .seconds(1.5)) { seen.value.count == count }
        await again.stop()
    }
}
