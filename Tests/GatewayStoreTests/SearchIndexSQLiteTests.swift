import Foundation
import GRDB
import GatewayLibraryModel
import GatewaySearchText
import GatewayTestSupport
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

/// What only the SQLite index does: its migration queues the documents already filed, its writes
/// commit or roll back with the catalog's transaction, and fsck sees a full-text table that no
/// longer matches its text.
@Suite("SQLite search index")
struct SearchIndexSQLiteTests {
    @Test func theMigrationQueuesDocumentsFiledBeforeIt() async throws {
        let fixture = try await LibraryFixture()
        let folder = try await fixture.library.createFolder(path: "Old/Scans", owner: "alice")
        let early = try await fixture.file(SearchFixture.pdf, name: "Early Invoice")
        let filed = try await fixture.file(SearchFixture.pdf, folder: .id(folder.id), name: "Filed Contract")
        let path = fixture.library.paths.database
        // As the store was before v9: no search tables, the migration not yet run.
        try await fixture.library.embeddedDatabase().pool.write { db in
            try db.execute(
                sql: """
                    DROP TABLE document_fts; DROP TABLE page_fts; DROP VIEW document_fts_source;
                    DROP TABLE document_pages; DROP TABLE document_index;
                    DELETE FROM grdb_migrations WHERE identifier = 'v9-search'
                    """
            )
        }
        let database = try GatewayDatabase(path: path)
        let index = SQLiteSearchIndex(database: database)

        #expect(try await index.status(owner: "alice") == SearchIndexStatus(pending: 2, ready: 0, failed: 0))
        #expect(try await index.pending(limit: 10).map(\.documentID) == [early.id.lowercased, filed.id.lowercased], "oldest first")
        let scans = SearchScope(owner: "alice", folderID: folder.id.lowercased, recursive: false)
        let hits = try await index.search(SearchRequest(query: try SearchQuery(parsing: "contract"), scope: scans))
        #expect(hits.hits.map(\.documentID) == [filed.id.lowercased], "found by name, in its folder, before its text is read")
        let old = try await fixture.library.folder(.path("Old"), owner: "alice")!
        let recursive = SearchScope(owner: "alice", folderID: old.id.lowercased)
        #expect(try await index.search(SearchRequest(query: try SearchQuery(parsing: "filed"), scope: recursive)).hits.count == 1)
        #expect(try await index.check(verifyFullText: true).isEmpty)
    }

    @Test func writesCommitAndRollBackWithTheCallersTransaction() async throws {
        let search = try await SearchIndexBackend.sqlite.make()
        let document = try await search.library.file(SearchFixture.pdf, name: "Transactional")
        let pool = try search.library.library.embeddedDatabase().pool
        let entry = search.entry(for: document, content: .text(DocumentText(pages: ["atomic words"]), source: .pdf))

        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await pool.write { db in
                try SQLiteSearchIndex.write(entry, in: db)
                throw Abandoned()
            }
        }
        #expect(try await search.names("atomic") == [])
        // The filing's own entry is still there, pending: the abandoned write left nothing.
        #expect(try await search.index.status(owner: "alice") == SearchIndexStatus(pending: 1, ready: 0, failed: 0))
        #expect(try await search.index.check(verifyFullText: true).isEmpty)

        try await pool.write { db in
            try SQLiteSearchIndex.write(entry, in: db)
            try SQLiteSearchIndex.rename(documentID: entry.documentID, name: "Renamed In Transaction", title: nil, in: db)
        }
        #expect(try await search.names("atomic") == ["Transactional"])  // the library row keeps its own name
        #expect(try await search.search("renamed").count == 1)
    }

    @Test func checkFindsAFullTextTableThatNoLongerMatchesItsTextAndRepairRebuildsIt() async throws {
        let search = try await SearchIndexBackend.sqlite.make()
        try await search.file("tampered", pages: ["original words"])
        let pool = try search.library.library.embeddedDatabase().pool
        // Text changed behind FTS5's back: its tokens no longer match the stored pages.
        try await pool.write { db in try db.execute(sql: "UPDATE document_pages SET body = 'replaced words'") }

        #expect(try await search.index.check(verifyFullText: false).isEmpty, "only the full-text check reads the text")
        let issues = try await search.index.check(verifyFullText: true)
        // Both tables: the document-level one indexes the same pages through its view.
        #expect(issues.map(\.kind) == [.corrupt, .corrupt], "\(issues)")
        #expect(issues.contains { $0.detail.contains("page_fts") })
        try await search.index.repair(issues)
        #expect(try await search.index.check(verifyFullText: true).isEmpty)
        #expect(try await search.names("replaced") == ["tampered"])
        #expect(try await search.names("original") == [])
    }

    @Test func pageTextIsStoredOnceAndPagesWithoutWordsNotAtAll() async throws {
        let search = try await SearchIndexBackend.sqlite.make()
        let document = try await search.file("stored", pages: ["first page", " \n ", "third page"])
        let pool = try search.library.library.embeddedDatabase().pool
        let (pages, sequence) = try await pool.read { db in
            (
                try Int.fetchAll(db, sql: "SELECT page FROM document_pages ORDER BY id"),
                try SQLiteSearchIndex.sequence(of: document.id.lowercased, in: db)
            )
        }
        #expect(pages == [1, 3])
        #expect(sequence != nil)
        // The document-level row is assembled from the pages by the view, not a second copy.
        let tables = try await pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'document_fts%'") }
        #expect(tables.contains("document_fts_source") && !tables.contains("document_fts_content"))
    }

    @Test func onlyTheNewestMatchesAreRankedAndTheAnswerSaysSo() async throws {
        let search = try await SearchIndexBackend.sqlite.make()
        var documents: [Document] = []
        for index in 0..<6 {
            // The oldest has the word most often: it would rank first if every match were ranked.
            let text = Array(repeating: "harvest", count: 6 - index).joined(separator: " ")
            documents.append(try await search.file("field \(index)", pages: [text]))
        }
        let pool = try search.library.library.embeddedDatabase().pool
        let query = try SearchQuery(parsing: "harvest")
        let page = try await pool.read { db in
            try SQLiteSearchIndex.search(SearchRequest(query: query, scope: SearchScope(owner: "alice")), rankedAmong: 3, in: db)
        }
        #expect(page.capped && page.rankedAmong == 3)
        #expect(Set(page.hits.map(\.documentID)) == Set(documents.suffix(3).map(\.id.lowercased)), "the three newest")
        let all = try await pool.read { db in
            try SQLiteSearchIndex.search(SearchRequest(query: query, scope: SearchScope(owner: "alice")), rankedAmong: 6, in: db)
        }
        #expect(!all.capped && all.hits.count == 6)
        #expect(all.hits.first?.documentID == documents[0].id.lowercased, "ranked by score once all are candidates")
    }
}
