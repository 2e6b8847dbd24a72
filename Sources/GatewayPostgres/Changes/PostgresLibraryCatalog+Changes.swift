import Foundation
import GatewayLibraryModel
import PostgresNIO

extension PostgresLibraryCatalog {
    package func changes(owner: String, after sequence: Int64, limit: Int) async throws -> JournalPage {
        try await database.withConnection { session in
            let head = try await Self.journalHead(session)
            let rows = try await session.query(
                """
                SELECT seq, kind, item_id, deleted FROM library_changes
                WHERE owner = \(owner) AND seq > \(sequence) ORDER BY seq LIMIT \(limit)
                """
            ).map { try $0.decode((Int64, String, String, Bool).self) }
            return try await Self.page(session, head: head, rows: rows)
        }
    }

    package func changes(owner: String, inFolder folderID: String, after sequence: Int64) async throws -> JournalPage {
        try await database.withConnection { session in
            let head = try await Self.journalHead(session)
            let rows = try await session.query(
                """
                SELECT c.seq, c.kind, c.item_id, c.deleted FROM documents d
                    JOIN library_changes c ON c.kind = 'document' AND c.item_id = d.id
                    WHERE d.owner = \(owner) AND d.folder_id = \(folderID) AND d.state = 'ready' AND c.seq > \(sequence)
                UNION ALL
                SELECT c.seq, c.kind, c.item_id, c.deleted FROM folders f
                    JOIN library_changes c ON c.kind = 'folder' AND c.item_id = f.id
                    WHERE f.owner = \(owner) AND f.parent_id = \(folderID) AND f.state = 'ready' AND c.seq > \(sequence)
                ORDER BY 1
                """
            ).map { try $0.decode((Int64, String, String, Bool).self) }
            var page = try await Self.page(session, head: head, rows: rows)
            page.departures = try await session.query(
                """
                SELECT seq, kind, name FROM library_departures
                WHERE owner = \(owner) AND parent_id = \(folderID) AND seq > \(sequence) ORDER BY seq
                """
            ).map { row in
                let (seq, kind, name) = try row.decode((Int64, String, String).self)
                return JournalDeparture(sequence: seq, kind: LibraryItemKind(rawValue: kind) ?? .document, name: name)
            }
            return page
        }
    }

    /// The journal's epoch, horizon and highest number, read before the rows: a change committed
    /// in between has a higher number, so a token made from it never passes over a change the
    /// page did not read.
    private static func journalHead(_ session: PostgresSession) async throws -> (epoch: String, horizon: Int64, latest: Int64) {
        guard
            let journal = try await session.query(
                "SELECT epoch, horizon, (SELECT coalesce(max(seq), 0) FROM library_changes) FROM library_journal"
            ).first
        else { throw LibraryError(.storage, "the change journal's row is missing; run the migrations again") }
        return try journal.decode((String, Int64, Int64).self)
    }

    /// Journal `rows` (seq, kind, item_id, deleted), each joined with its item as it is now.
    private static func page(
        _ session: PostgresSession,
        head: (epoch: String, horizon: Int64, latest: Int64),
        rows: [(Int64, String, String, Bool)]
    ) async throws -> JournalPage {
        let shown = { (kind: String) in rows.filter { $0.1 == kind && !$0.3 }.map(\.2) }
        let documentIDs = shown("document")
        let folderIDs = shown("folder")
        var documents: [String: DocumentWithPath] = [:]
        if !documentIDs.isEmpty {
            for row in try await session.query("SELECT \(unescaped: documentSelection) WHERE documents.id = ANY(\(documentIDs))") {
                let document = try Self.document(row)
                documents[document.record.id] = document
            }
        }
        var folders: [String: FolderRecord] = [:]
        if !folderIDs.isEmpty {
            for row in try await session.query("SELECT \(unescaped: folderColumns) FROM folders WHERE id = ANY(\(folderIDs))") {
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
        return JournalPage(epoch: head.epoch, horizon: head.horizon, latest: head.latest, entries: entries)
    }

    package func forgetDeletions(before date: Date) async throws -> Int {
        let rows = try await database.query(
            """
            WITH gone AS (
                DELETE FROM library_changes WHERE deleted AND changed_at < \(date) RETURNING seq
            ), left_ AS (
                DELETE FROM library_departures WHERE changed_at < \(date) RETURNING seq
            ), moved AS (
                UPDATE library_journal
                SET horizon = greatest(horizon, (SELECT max(seq) FROM (SELECT seq FROM gone UNION ALL SELECT seq FROM left_) forgotten))
                WHERE EXISTS (SELECT 1 FROM gone) OR EXISTS (SELECT 1 FROM left_)
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
