import Foundation
import GatewayLibraryModel
import PostgresNIO

extension PostgresLibraryCatalog {
    package func changes(owner: String, after sequence: Int64, limit: Int) async throws -> JournalPage {
        try await database.withConnection { session in
            // The highest number before the rows: a change committed in between has a higher one,
            // so a token made from it never passes over a change this page did not read.
            guard
                let journal = try await session.query(
                    "SELECT epoch, horizon, (SELECT coalesce(max(seq), 0) FROM library_changes) FROM library_journal"
                ).first
            else { throw LibraryError(.storage, "the change journal's row is missing; run the migrations again") }
            let (epoch, horizon, latest) = try journal.decode((String, Int64, Int64).self)
            let rows = try await session.query(
                """
                SELECT seq, kind, item_id, deleted FROM library_changes
                WHERE owner = \(owner) AND seq > \(sequence) ORDER BY seq LIMIT \(limit)
                """
            ).map { try $0.decode((Int64, String, String, Bool).self) }
            let shown = { (kind: String) in rows.filter { $0.1 == kind && !$0.3 }.map(\.2) }
            let documentIDs = shown("document")
            let folderIDs = shown("folder")
            var documents: [String: DocumentWithPath] = [:]
            if !documentIDs.isEmpty {
                for row in try await session.query("SELECT \(unescaped: Self.documentSelection) WHERE documents.id = ANY(\(documentIDs))") {
                    let document = try Self.document(row)
                    documents[document.record.id] = document
                }
            }
            var folders: [String: FolderRecord] = [:]
            if !folderIDs.isEmpty {
                for row in try await session.query("SELECT \(unescaped: Self.folderColumns) FROM folders WHERE id = ANY(\(folderIDs))") {
                    let folder = try Self.folder(row)
                    folders[folder.id] = folder
                }
            }
            let entries = rows.map { seq, kind, id, deleted -> (sequence: Int64, item: JournalItem) in
                if kind == "document" {
                    return (seq, (deleted ? nil : documents[id]).map(JournalItem.document) ?? .deletedDocument(id))
                }
                return (seq, (deleted ? nil : folders[id]).map(JournalItem.folder) ?? .deletedFolder(id))
            }
            return JournalPage(epoch: epoch, horizon: horizon, latest: latest, entries: entries)
        }
    }

    package func forgetDeletions(before date: Date) async throws -> Int {
        let rows = try await database.query(
            """
            WITH gone AS (
                DELETE FROM library_changes WHERE deleted AND changed_at < \(date) RETURNING seq
            ), moved AS (
                UPDATE library_journal SET horizon = greatest(horizon, (SELECT max(seq) FROM gone))
                WHERE EXISTS (SELECT 1 FROM gone)
            )
            SELECT count(*) FROM gone
            """
        )
        return try rows.first?.decode(Int.self) ?? 0
    }

    package func version(ofDocument id: String) async throws -> Int64? { try await version(kind: "document", id: id) }
    package func version(ofFolder id: String) async throws -> Int64? { try await version(kind: "folder", id: id) }

    private func version(kind: String, id: String) async throws -> Int64? {
        try await database.query("SELECT seq FROM library_changes WHERE kind = \(kind) AND item_id = \(id) AND NOT deleted")
            .first?.decode(Int64.self)
    }

    package func owner(ofFolder id: String) async throws -> String? {
        try await database.query("SELECT owner FROM folders WHERE id = \(id)").first?.decode(String.self)
    }
}
