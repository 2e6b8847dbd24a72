import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// `GET /v1/documents?q=`: the library searched by what its documents say, through the router
/// in-process, on PDFs with real text layers that the inspector's worker reads.
@Suite("Full-text search over the API")
struct SearchAPITests {
    @Test("words, phrases, prefixes and exclusions find documents by their text, ranked, with page and snippet; rename keeps hits, delete drops them")
    func searchByText() async throws {
        let gateway = try await InProcessGateway()
        let pdfs = TemporaryDirectory("search-pdfs")
        let texts: [(name: String, folder: String, pages: [String])] = [
            ("Lease", "Home", ["Rental agreement for the flat", "The tenant pays the quarterly service charge"]),
            ("Invoice 2026", "Work/Billing", ["Invoice for consulting services", "Total amount due within thirty days"]),
            ("Notes", "", ["Shopping list: apples, bread, quarterly magazine"]),
        ]
        for (index, text) in texts.enumerated() { try await TextPDF.make(pdfs.path + "/\(index).pdf", pages: text.pages) }
        let assembly = gateway.server.assembly
        try await gateway.run { client in
            var ids: [String: String] = [:]
            for (index, text) in texts.enumerated() {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: pdfs.path + "/\(index).pdf")))
                let folder = text.folder.isEmpty ? "" : "&folder=\(text.folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                let filed = try await client.send(
                    .post,
                    "/v1/documents?filename=\(index).pdf&name=\(text.name.replacingOccurrences(of: " ", with: "%20"))\(folder)",
                    bytes: bytes
                )
                #expect(filed.status == .created, "\(filed.json)")
                ids[text.name] = try #require(filed.json["id"] as? String)
            }
            // Filed with their entries pending: found by name before the text is read.
            let early = try await client.send(.get, "/v1/documents?q=invoice")
            #expect((early.json["search"] as? [String: Any])?["pending"] as? Int == 3, "\(early.json)")
            #expect(Self.ids(early) == [ids["Invoice 2026"]], "the name matches before the text is read")

            #expect(try await assembly.indexPendingText() == 3)

            // A word on page 2 of one and page 1 of another: both, each with its page and a marked snippet.
            let quarterly = try await client.send(.get, "/v1/documents?q=quarterly")
            #expect(quarterly.status == .ok)
            #expect(Set(Self.ids(quarterly)) == [ids["Lease"], ids["Notes"]])
            let hits = try #require(quarterly.json["hits"] as? [[String: Any]])
            let leaseHit = try #require(hits.first { $0["document_id"] as? String == ids["Lease"] })
            #expect(leaseHit["page"] as? Int == 2 && leaseHit["matched_in"] as? String == "text")
            let marked = (leaseHit["snippet"] as? [[String: Any]])?.filter { $0["match"] as? Bool == true }.compactMap { $0["text"] as? String }
            #expect(marked?.map { $0.lowercased() } == ["quarterly"], "\(leaseHit)")
            #expect((quarterly.json["search"] as? [String: Any])?["pending"] as? Int == 0)

            // A phrase, a prefix, an exclusion, and a folder's scope.
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=%22service%20charge%22")) == [ids["Lease"]])
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=consult*")) == [ids["Invoice 2026"]])
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=quarterly%20-tenant")) == [ids["Notes"]])
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=quarterly&folder=Home")) == [ids["Lease"]])
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=quarterly&recursive=false")) == [ids["Notes"]], "the root alone")
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=invoice&folder=Work")) == [ids["Invoice 2026"]], "under Work")

            // Pages of one hit each, through the cursor.
            let first = try await client.send(.get, "/v1/documents?q=quarterly&limit=1")
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await client.send(.get, "/v1/documents?q=quarterly&limit=1&cursor=\(cursor)")
            #expect(Set(Self.ids(first) + Self.ids(second)) == [ids["Lease"], ids["Notes"]] && second.json["next_cursor"] is NSNull)

            // A rename keeps the text's hits and adds the name's; a delete removes them all.
            let lease = try #require(ids["Lease"])
            let renamed = try await client.send(.patch, "/v1/documents/\(lease)", json: ["name": "Flat contract"])
            #expect(renamed.status == .ok)
            #expect(Set(Self.ids(try await client.send(.get, "/v1/documents?q=quarterly"))) == [lease, ids["Notes"]])
            let byName = try await client.send(.get, "/v1/documents?q=contract")
            #expect(Self.ids(byName) == [lease] && (byName.json["hits"] as? [[String: Any]])?.first?["matched_in"] as? String == "name")
            #expect(try await client.send(.delete, "/v1/documents/\(lease)").status == .noContent)
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=quarterly")) == [ids["Notes"]])
            #expect(Self.ids(try await client.send(.get, "/v1/documents?q=tenant")).isEmpty)

            // What cannot be searched says how to write what can.
            for bad in ["-tenant", "%22%22", "quarterly&cursor=bm90LWEtY3Vyc29y"] {
                let refused = try await client.send(.get, "/v1/documents?q=\(bad)")
                #expect(refused.status == .unprocessableContent, "\(bad): \(refused.json)")
                #expect(["invalid_query", "invalid_cursor"].contains(refused.error.code ?? ""), "\(bad): \(refused.json)")
                #expect((refused.error.message ?? "").count > 20)
            }

            // The backfill's progress, as /metrics shows it.
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("pdfgate_search_index_documents{state=\"pending\"} 0"))
            #expect(metrics.contains("pdfgate_search_index_documents{state=\"ready\"} 2"))
        }
    }

    static func ids(_ response: TestResponse) -> [String?] {
        (response.json["documents"] as? [[String: Any]])?.map { $0["id"] as? String } ?? []
    }
}
