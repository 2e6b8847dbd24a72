import Foundation
import GatewayAssembly
import GatewayLibrary
import GatewayLibraryModel
import GatewayPostgres
import GatewaySearchText
import GatewayStore
import GatewayTestSupport
import Testing

/// What only the PostgreSQL index does: its migration queues the documents a cluster filed before
/// it, the nodes' indexers share the pending entries instead of each reading all of them, and a
/// query with many matches is answered from the copy of the newest entries.
@Suite("PostgreSQL search index")
struct SearchIndexPostgresTests {
    @Test func theMigrationQueuesDocumentsFiledBeforeIt() async throws {
        let fixture = try await LibraryFixture(.postgres)
        let database = try #require(fixture.database)
        let folder = try await fixture.library.createFolder(path: "Old/Scans", owner: "alice")
        let early = try await fixture.file(SearchFixture.pdf, name: "Early Invoice")
        let filed = try await fixture.file(SearchFixture.pdf, folder: .id(folder.id), name: "Filed Contract")
        // As the database was before v7: no search tables, the migration not yet run.
        let url = try TestPostgres.url(of: database)
        try TestPostgres.psql(
            url,
            """
            DROP TABLE document_pages; DROP TABLE document_recent; DROP TABLE document_index;
            DROP FUNCTION pdfgate_search_scope; DROP FUNCTION pdfgate_search_recent; DROP FUNCTION pdfgate_search_newest;
            DELETE FROM schema_migrations WHERE name = 'v7-search'
            """
        )
        let reopened = try await PostgresDatabase.open(url: url)
        let index = try await Library.shared(root: fixture.root, database: reopened).searchIndex

        #expect(try await index.status(owner: "alice") == SearchIndexStatus(pending: 2, ready: 0, failed: 0))
        let scans = SearchScope(owner: "alice", folderID: folder.id.lowercased, recursive: false)
        let hits = try await index.search(SearchRequest(query: try SearchQuery(parsing: "contract"), scope: scans))
        #expect(hits.hits.map(\.documentID) == [filed.id.lowercased], "found by name, in its folder, before its text is read")
        let old = try #require(try await fixture.library.folder(.path("Old"), owner: "alice"))
        let recursive = SearchScope(owner: "alice", folderID: old.id.lowercased)
        #expect(try await index.search(SearchRequest(query: try SearchQuery(parsing: "filed"), scope: recursive)).hits.count == 1)
        #expect(try await index.check(verifyFullText: true).isEmpty)
        #expect(try await index.pending(limit: 10).map(\.documentID) == [early.id.lowercased, filed.id.lowercased], "oldest first")
        await reopened.close()
    }

    /// With the cap at 3, five matches among the newest entries make a capped query: answered
    /// from `document_recent`, newest first. Renames, moves and deletes reach that copy.
    @Test func manyMatchesComeFromTheNewestEntriesNewestFirst() async throws {
        let search = try await SearchIndexBackend.postgres.make()
        let library = search.library.library
        let archive = try await library.createFolder(path: "Archive", owner: "alice")
        var documents: [Document] = []
        for index in 0..<5 { documents.append(try await search.file("ledger \(index)", pages: ["common words in every ledger"])) }
        try await search.file("rare", pages: ["a ledger with one rare word"])
        let database = try #require(search.library.database)
        func hits(_ text: String, folder: String? = nil) async throws -> SearchPage {
            try await database.withConnection { session in
                try await PostgresSearchIndex.search(
                    SearchRequest(query: try SearchQuery(parsing: text), scope: SearchScope(owner: "alice", folderID: folder), limit: 10),
                    rankedAmong: 3,
                    in: session
                )
            }
        }
        let common = try await hits("common words")
        #expect(common.hits.map(\.documentID) == documents.reversed().prefix(3).map(\.id.lowercased), "the newest three")
        #expect(common.capped && common.hits.first?.page == 1)
        let rare = try await hits("rare ledger")
        #expect(rare.hits.count == 1 && !rare.capped, "a query with few matches is ranked from the whole index")
        #expect(rare.hits.first.map { $0.score < 1 } == true, "a rank, not a position among the newest: \(rare.hits)")

        try await library.updateDocument(id: documents[4].id, owner: "alice", name: "Renamed Zebra")
        try await search.index.rename(documentID: documents[4].id.lowercased, name: "Renamed Zebra", title: nil)
        #expect(try await hits("common zebra").hits.map(\.documentID) == [documents[4].id.lowercased])
        try await library.updateDocument(id: documents[3].id, owner: "alice", folder: .id(archive.id))
        #expect(try await hits("common", folder: archive.id.lowercased).hits.map(\.documentID) == [documents[3].id.lowercased])
        try await library.deleteDocument(id: documents[4].id, owner: "alice")
        #expect(try await hits("common").hits.map(\.documentID) == [3, 2, 1].map { documents[$0].id.lowercased })
        // The copy holds what the index holds for those entries, no more.
        let url = try TestPostgres.url(of: database)
        let copies = try await run(
            "psql",
            [
                url, "-tAc",
                "SELECT count(*) FROM document_recent r JOIN document_index i USING (doc_seq) WHERE r.words = i.words AND r.scope = i.scope",
            ]
        )
        let total = try await run("psql", [url, "-tAc", "SELECT count(*) FROM document_recent"])
        #expect(
            copies.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5"
                && total.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5"
        )
        // And a capped query reads the copy, not the whole index: a word only the copies hold
        // (written here behind the trigger's back) is found.
        try TestPostgres.psql(url, "UPDATE document_recent SET words = words || 'onlyinthecopy'::tsvector")
        #expect(try await hits("common onlyinthecopy").hits.map(\.documentID) == [3, 2, 1].map { documents[$0].id.lowercased })
        #expect(try await hits("rare onlyinthecopy").hits.isEmpty, "fewer matches than the cap are looked for in the whole index")
    }

    @Test func nodesShareThePendingEntries() async throws {
        let search = try await SearchIndexBackend.postgres.make()
        let database = try #require(search.library.database)
        let documents = [
            try await search.file("one", pages: nil), try await search.file("two", pages: nil), try await search.file("three", pages: nil),
        ]
        // A second node: its own connections to the same database.
        let other = try await PostgresDatabase.open(url: try TestPostgres.url(of: database))
        let otherIndex = try await Library.shared(root: search.library.root, database: other).searchIndex

        let first = try await search.index.pending(limit: 2)
        #expect(first.map(\.documentID) == documents.prefix(2).map(\.id.lowercased), "the oldest two, claimed")
        let second = try await otherIndex.pending(limit: 2)
        #expect(second.map(\.documentID) == [documents[2].id.lowercased], "the other node gets only what is left")
        #expect(try await search.index.pending(limit: 10).isEmpty, "everything is claimed")
        #expect(try await search.index.status(owner: nil).pending == 3, "claimed entries are still pending")

        // A replaced file's entry is pending again and free to claim at once.
        try await search.index.write(search.entry(for: documents[0], content: .pending))
        #expect(try await otherIndex.pending(limit: 10).map(\.documentID) == [documents[0].id.lowercased])
        // Once written, an entry is no longer pending anywhere.
        let text = SearchContent.text(DocumentText(pages: ["claimed and read"]), source: .pdf)
        #expect(try await otherIndex.writeText(documentID: documents[0].id.lowercased, sha256: documents[0].sha256, content: text))
        #expect(try await search.names("claimed") == ["one"])
        #expect(try await search.index.status(owner: nil).pending == 2)
        await other.close()
    }
}
