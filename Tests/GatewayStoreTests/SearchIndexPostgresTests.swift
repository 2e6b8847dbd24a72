import Foundation
import GatewayAssembly
import GatewayCore
import GatewayPostgres
import GatewayStore
import GatewayTestSupport
import Testing

/// What only the PostgreSQL index does: its migration queues the documents a cluster filed before
/// it, and the nodes' indexers share the pending entries instead of each reading all of them.
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
            DROP TABLE document_pages; DROP TABLE document_index; DROP FUNCTION pdfgate_search_scope;
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
