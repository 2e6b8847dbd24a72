import Foundation
import GatewayLibraryModel
import GatewaySearchText
import PostgresNIO

/// The search index in the cluster's PostgreSQL database: a `tsvector` per document with a GIN
/// index (see `PostgresSearchSchema`), behind the same port as SQLite's FTS5 index.
///
/// Text reaches PostgreSQL already split and folded by `SearchTokenizer.indexedWords`, and
/// queries by `SearchQuery.postgresTSQueryText`, so both backends agree on what a word is. The
/// catalog keeps the index in step in its own transactions with the static functions that take
/// a `PostgresSession`; the instance methods run them on a connection of their own.
package final class PostgresSearchIndex: SearchIndex {
    let database: PostgresDatabase

    package init(database: PostgresDatabase) {
        self.database = database
    }

    package func write(_ entry: SearchEntry) async throws {
        try await database.transaction { try await Self.write(entry, in: $0) }
    }

    package func writeText(documentID: String, sha256: String, content: SearchContent) async throws -> Bool {
        try await database.transaction { session in
            // The row locked until commit: no rename or move slips between the read and the write.
            let rows = try await session.query(
                """
                SELECT owner, folder_id, name, title FROM documents
                WHERE id = \(documentID) AND state = 'ready' AND path_before IS NULL AND sha256 = \(sha256) FOR SHARE
                """
            )
            guard let row = rows.first else { return false }
            let (owner, folderID, name, title) = try row.decode((String, String, String, String?).self)
            let entry = SearchEntry(
                documentID: documentID,
                owner: owner,
                folderID: folderID,
                name: name,
                title: title,
                sha256: sha256,
                content: content
            )
            try await Self.write(entry, in: session)
            return true
        }
    }

    /// Many entries in one transaction: seeding a benchmark's index.
    package func writeAll(_ entries: [SearchEntry]) async throws {
        try await database.transaction { session in
            for entry in entries { try await Self.write(entry, in: session) }
        }
    }

    package func rename(documentID: String, name: String, title: String?) async throws {
        try await database.withConnection { try await Self.rename(documentID: documentID, name: name, title: title, in: $0) }
    }

    package func move(documentID: String, folderID: String) async throws {
        try await database.withConnection { try await Self.move(documentID: documentID, folderID: folderID, in: $0) }
    }

    package func moveFolder(id: String) async throws {
        try await database.withConnection { try await Self.moveFolder(id: id, in: $0) }
    }

    package func delete(documentIDs: [String]) async throws {
        try await database.withConnection { try await Self.delete(documentIDs: documentIDs, in: $0) }
    }

    package func search(_ request: SearchRequest) async throws -> SearchPage {
        try await database.withConnection { try await Self.search(request, in: $0) }
    }

    /// How long an entry `pending(limit:)` handed out is left to the node reading it: past a
    /// batch of worker timeouts, so a node that died mid-batch delays its entries by this much.
    static let claim = "interval '120 seconds'"

    /// Claims what it answers: the other nodes' indexers skip these entries until they are
    /// written or the claim lapses. Oldest first.
    package func pending(limit: Int) async throws -> [PendingDocument] {
        try await database.query(
            """
            UPDATE document_index SET claimed_until = now() + \(unescaped: Self.claim)
            WHERE doc_seq IN (
                SELECT doc_seq FROM document_index WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
                ORDER BY doc_seq LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED)
            RETURNING doc_seq, document_id, owner
            """
        ).map { row in
            let (sequence, id, owner) = try row.decode((Int64, String, String).self)
            return (sequence, PendingDocument(documentID: id, owner: owner))
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    package func status(owner: String?) async throws -> SearchIndexStatus {
        let rows = try await database.query(
            "SELECT state, count(*) FROM document_index WHERE \(owner)::text IS NULL OR owner = \(owner) GROUP BY state"
        )
        var counts: [String: Int] = [:]
        for row in rows {
            let (state, count) = try row.decode((String, Int64).self)
            counts[state] = Int(count)
        }
        return SearchIndexStatus(pending: counts["pending"] ?? 0, ready: counts["ready"] ?? 0, failed: counts["failed"] ?? 0)
    }

    /// PostgreSQL maintains its GIN indexes itself and has no check of a `tsvector` against the
    /// text it came from, so `verifyFullText` adds nothing here: the entries are compared with
    /// the catalog's documents.
    package func check(verifyFullText: Bool) async throws -> [SearchIndexIssue] {
        try await database.withConnection { try await Self.check(in: $0) }
    }

    package func repair(_ issues: [SearchIndexIssue]) async throws {
        try await database.transaction { try await Self.repair(issues, in: $0) }
    }
}
