import Foundation
import GatewayTestSupport
import Testing

/// SIGTERM on a real `pdfgate serve` over a real PostgreSQL database: the service group stops
/// the engine and the webhook sender before it closes the database client, so what they write
/// while stopping reaches the database.
@Suite("SIGTERM on PostgreSQL: the stores close last")
struct ShutdownOrderTests {
    @Test("a job that ends within the grace period is recorded, its webhook kept in the outbox, before the PostgreSQL client closes")
    func storesCloseAfterTheEngine() async throws {
        let databaseURL = try TestPostgres.freshDatabaseURL()
        let gotenberg = try ShutdownTests.slowGotenberg(delay: 2)
        defer { gotenberg.stop() }
        // Down for good: the delivery is still owed when the server stops.
        let receiver = try LoopbackHTTPServer { request, response in
            _ = try request.readBody()
            try response.respond(status: 503)
        }
        defer { receiver.stop() }
        let directory = TemporaryDirectory("shutdown-order")
        let server = try await ServerProcess(
            store: directory.path + "/store",
            arguments: [
                "--database", databaseURL, "--routes", "DOC_TO_PDF=gotenberg=\(gotenberg.baseURL)", "--shutdown-grace", "30",
                "--allow-host", "127.0.0.1",
            ]
        )
        let client = APIClient(base: server.baseURL)
        let callback = receiver.url("/hook").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let created = try await client.oneShot("sample.docx", query: "&callback_url=" + callback)
        let id = try #require(created.string("job_id"), "\(created.text)")
        _ = try await CrashRestartTests.waitFor(client, id) { $0["phase"] as? String == "converting" }

        server.process.signal(SIGTERM)
        let status = await ShutdownTests.exitStatus(of: server.process, within: .seconds(40))
        await server.stop()
        #expect(status == 0, "serve exited after letting the job finish\n\(server.log)")

        let query = { (sql: String) in
            try await run("psql", [databaseURL, "-tA", "-c", sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try await query("SELECT status FROM jobs WHERE id = '\(id)'") == "SUCCEEDED", "the job's end was written\n\(server.log)")
        #expect(
            try await query("SELECT count(*) FROM webhook_outbox WHERE job_id = '\(id)'") == "1",
            "its webhook is owed to the next start\n\(server.log)"
        )
    }
}
