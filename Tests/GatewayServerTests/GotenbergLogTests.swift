import Foundation
import GatewayTestSupport
import Testing

/// Log lines as Gotenberg writes them in a container: one JSON object a line, and one line a
/// request on its routes that names the request's trace as `correlation_id`.
@Suite("Gotenberg's log lines")
struct GotenbergLogTests {
    @Test("--log-format json writes every line as a JSON object, and each Gotenberg request as one with its correlation_id and path")
    func jsonLinesWithCorrelation() async throws {
        let server = try await ServerProcess(
            arguments: ["--log-format", "json", "--log-level", "info"],
            environment: ["API_DISABLE_HEALTH_CHECK_ROUTE_TELEMETRY": "true"]
        )
        let client = APIClient(base: server.baseURL)
        #expect(try await client.get("/health").status == 200)
        let version = try await client.send("GET", "/version", headers: [("Gotenberg-Trace", "version-4711")])
        #expect(version.status == 200)
        let refused = try await client.send("POST", "/forms/pdfengines/merge", headers: [("Gotenberg-Trace", "merge-4712")])
        #expect(refused.status == 400)
        try await eventually("both requests are logged", within: .seconds(5)) {
            server.log.contains(#""correlation_id":"version-4711""#) && server.log.contains(#""correlation_id":"merge-4712""#)
        }
        await server.stop()
        let lines = server.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["msg"] is String, "not a JSON log line: \(line)")
        }
        #expect(!server.log.contains(#""path":"/health""#), "API_DISABLE_HEALTH_CHECK_ROUTE_TELEMETRY quiets /health")
        let merge = lines.first { $0.contains("merge-4712") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(
            merge?["path"] as? String == "/forms/pdfengines/merge" && merge?["status"] as? String == "400"
                && merge?["msg"] as? String == "request handled"
        )
    }
}
