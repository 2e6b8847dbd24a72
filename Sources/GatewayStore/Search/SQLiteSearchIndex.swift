import Foundation
import GRDB
import GatewayLibraryModel
import GatewaySearchText

/// The search index in the store's own SQLite database, with FTS5 (see `SearchSchema`).
///
/// The catalog keeps the index in step inside its own write transactions, with the static
/// functions that take a `Database` (`write(_:in:)`, `rename`, `move`, `moveFolder`,
/// `delete`); the instance methods run the same functions in a transaction of their own.
package final class SQLiteSearchIndex: SearchIndex {
    package let database: GatewayDatabase

    package init(database: GatewayDatabase) {
        self.database = database
    }

    private var pool: DatabasePool { database.pool }

    package func write(_ entry: SearchEntry) async throws {
        try await pool.write { db in try Self.write(entry, in: db) }
    }

    package func writeText(documentID: String, sha256: String, content: SearchContent) async throws -> Bool {
        try await pool.write { db in
            guard let document = try DocumentRecord.fetchOne(db, key: documentID), document.state == .ready, document.pathBefore == nil,
                document.sha256 == sha256
            else { return false }
            try Self.write(SearchEntry(document, content: content), in: db)
            return true
        }
    }

    /// Many entries in one transaction: seeding a benchmark's index.
    package func writeAll(_ entries: [SearchEntry]) async throws {
        try await pool.write { db in
            for entry in entries { try Self.write(entry, in: db) }
        }
    }

    package func rename(documentID: String, name: String, title: String?) async throws {
        try await pool.write { db in try Self.rename(documentID: documentID, name: name, title: title, in: db) }
    }

    package func move(documentID: String, folderID: String) async throws {
        try await pool.write { db in try Self.move(documentID: documentID, folderID: folderID, in: db) }
    }

    package func moveFolder(id: String) async throws {
        try await pool.write { db in try Self.moveFolder(id: id, in: db) }
    }

    package func delete(documentIDs: [String]) async throws {
        try await pool.write { db in try Self.delete(documentIDs: documentIDs, in: db) }
    }

    package func search(_ request: SearchRequest) async throws -> SearchPage {
        try await pool.read { db in try Self.search(request, in: db) }
    }

    package func pending(limit: Int) async throws -> [PendingDocument] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT document_id, owner FROM document_index WHERE state = 'pending' ORDER BY doc_seq LIMIT ?",
                arguments: [max(0, limit)]
            ).map { PendingDocument(documentID: $0[0], owner: $0[1]) }
        }
    }

    package func status(owner: String?) async throws -> SearchIndexStatus {
        try await pool.read { db in
            let filter = owner == nil ? "" : "WHERE owner = ?"
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT state, count(*) FROM document_index \(filter) GROUP BY state",
                arguments: StatementArguments(owner.map { [$0] } ?? [])
            )
            var counts: [String: Int] = [:]
            for row in rows { counts[row[0]] = row[1] }
            return SearchIndexStatus(pending: counts["pending"] ?? 0, ready: counts["ready"] ?? 0, failed: counts["failed"] ?? 0)
        }
    }

    /// With `verifyFullText`, on the writer: FTS5's integrity check is an `INSERT` of a command,
    /// which a read-only connection refuses.
    package func check(verifyFullText: Bool) async throws -> [SearchIndexIssue] {
        if verifyFullText { return try await pool.write { db in try Self.check(verifyFullText: true, in: db) } }
        return try await pool.read { db in try Self.check(verifyFullText: false, in: db) }
    }

    package func repair(_ issues: [SearchIndexIssue]) async throws {
        try await pool.write { db in try Self.repair(issues, in: db) }
    }
}
