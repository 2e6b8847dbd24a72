import Foundation
import GatewayTestSupport
import Testing

/// An idle event stream gets a `:` comment every heartbeat interval (15 s by default; 0.3 s here
/// through `PDFGATE_EVENT_HEARTBEAT`), between the snapshot and the terminal event.
@Suite("Event stream heartbeats")
struct EventHeartbeatTests {
    @Test("a quiet stream carries heartbeats, then ends after the terminal event")
    func heartbeatsKeepAQuietStreamAlive() async throws {
        try await using(await ServerProcess(environment: ["PDFGATE_EVENT_HEARTBEAT": "0.3"])) { server in
            let client = APIClient(base: server.baseURL)
            // A file job never uploaded stays CREATED: nothing happens to it until it is cancelled.
            let created = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "quiet.docx"])
            let id = try #require(created.string("job_id"))
            // Time is the subject: 1.5 s of nothing happening, which heartbeats fill.
            let cancel = Task {
                try await Task.sleep(for: .seconds(1.5))
                _ = try await client.send("DELETE", "/v1/jobs/\(id)")
            }
            let stream = try await client.get("/v1/jobs/\(id)/events")
            try await cancel.value
            let text = stream.text
            let heartbeats = text.components(separatedBy: "\n").filter { $0.hasPrefix(": heartbeat") }.count
            #expect(heartbeats >= 3, "about five in 1.5 s at 0.3 s: \(text)")
            let snapshot = try #require(text.range(of: "data: "), "no event at all: \(text)")
            let firstHeartbeat = try #require(text.range(of: ": heartbeat"))
            #expect(snapshot.lowerBound < firstHeartbeat.lowerBound, "the snapshot comes first")
            #expect(text.contains("CANCELLED") && text.hasSuffix("\n\n"), "the stream ends with the terminal event: \(text)")
            await server.stop()
        }
    }
}
