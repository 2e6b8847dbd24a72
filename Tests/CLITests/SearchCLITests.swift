import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate search` end to end: PDFs of known text from Ghostscript, filed with `pdfgate add`,
/// then found by a word, a phrase and a prefix; their text is read by the search itself, since no
/// server runs an indexer here. Once on SQLite, once on PostgreSQL.
@Suite("pdfgate search")
struct SearchCLITests {
    /// On the embedded store, and with the library's rows in PostgreSQL (`PDFGATE_DATABASE_URL`).
    @Test(arguments: [false, true])
    func findsDocumentsByTheirTextWithPageAndSnippet(onPostgres: Bool) async throws {
        let cli = CLI(database: onPostgres ? try TestPostgres.freshDatabaseURL() : nil)
        let directory = TemporaryDirectory()
        try await TextPDF.make(directory.file("lease.pdf"), pages: ["Rental agreement", "The tenant pays the heating costs"])
        try await TextPDF.make(directory.file("receipt.pdf"), pages: ["Receipt for heating oil delivered"])
        #expect(try await cli("add", directory.file("lease.pdf"), "--folder", "Home").status == 0)
        #expect(try await cli("add", directory.file("receipt.pdf"), "--folder", "Bills").status == 0)

        let found = try #require(try await cli.json("search", "heating") as? [String: Any])
        let paths = (found["documents"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(Set(paths ?? []) == ["default/Home/lease.pdf", "default/Bills/receipt.pdf"], "\(found)")
        let hits = try #require(found["hits"] as? [[String: Any]])
        let pages = Dictionary(uniqueKeysWithValues: zip(paths ?? [], hits.map { $0["page"] as? Int }))
        #expect(pages["default/Home/lease.pdf"] == 2 && pages["default/Bills/receipt.pdf"] == 1)
        #expect((found["search"] as? [String: Any])?["pending"] as? Int == 0)

        let table = try await cli("search", "tenant pays")
        #expect(table.status == 0 && table.stdout.contains("Home/lease.pdf") && table.stdout.contains("[tenant]"), "\(table.stdout)")
        #expect(!table.stdout.contains("receipt"))
        let scoped = try #require(try await cli.json("search", "heat*", "--folder", "Bills") as? [String: Any])
        #expect((scoped["documents"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == ["default/Bills/receipt.pdf"])

        let refused = try await cli("search", "\"\"")
        #expect(refused.status != 0 && refused.stderr.contains("invalid_query"), "\(refused.stderr)")
    }
}
