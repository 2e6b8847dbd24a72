import Foundation
import GatewayTestSupport
import Testing

/// One job engine per store: a `pdfgate convert` next to a running `pdfgate serve` would
/// otherwise resume and run the server's jobs a second time.
@Suite("One engine per store")
struct StoreSharingTests {
    @Test("convert on a store a server is running jobs on is refused, and works once it stops")
    func convertRefusesABusyStore() async throws {
        let server = try await ServerProcess()
        // A job of the server's, waiting: a second engine would have picked it up.
        let client = APIClient(base: server.baseURL)
        #expect(try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"]).status == 201)
        let pdfgate = builtProduct("pdfgate")
        let refused = try await run(pdfgate, ["convert", Fixtures.office("sample.txt"), "--store", server.store])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("store_busy") && refused.stderr.contains("another pdfgate process"), "\(refused.stderr)")
        // The library commands do not run jobs and keep working beside the server.
        #expect(try await run(pdfgate, ["ls", "--store", server.store]).status == 0)
        await server.stop()

        let converted = try await run(pdfgate, ["convert", Fixtures.office("sample.txt"), "--store", server.store, "--json"])
        #expect(converted.status == 0, "\(converted.stderr)")
        // The server's waiting job is still its own: CREATED, untouched by the CLI's engine.
        let restarted = try await ServerProcess(store: server.store)
        let jobs = (try await APIClient(base: restarted.baseURL).get("/v1/jobs?status=CREATED").json["jobs"] as? [Any]) ?? []
        #expect(jobs.count == 1)
        await restarted.stop()
    }
}
