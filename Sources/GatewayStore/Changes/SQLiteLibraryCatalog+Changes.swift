import Foundation
import GRDB
import GatewayLibraryModel

extension SQLiteLibraryCatalog {
    package func changes(owner: String, after sequence: Int64, limit: Int) async throws -> JournalPage {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT seq, kind, item_id, deleted FROM library_changes WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?"),
                arguments: [owner, sequence, limit]
            )
            return try Self.page(db, rows: rows)
        }
    }

    package func changes(owner: String, inFolder folderID: String, after sequence: Int64) async throws -> JournalPage {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT c.seq, c.kind, c.item_id, c.deleted FROM documents d
                            JOIN library_changes c ON c.kind = 'document' AND c.item_id = d.id
                            WHERE d.owner = ? AND d.folder_id = ? AND d.state = 'ready' AND c.seq > ?
                        UNION ALL
                        SELECT c.seq, c.kind, c.item_id, c.deleted FROM folders f
                            JOIN library_changes c ON c.kind = 'folder' AND c.item_id = f.id
                            WHERE f.owner = ? AND f.parent_id = ? AND f.state = 'ready' AND c.seq > ?
                        ORDER BY 1
                        """
                ),
                arguments: [owner, folderID, sequence, owner, folderID, sequence]
            )
            var page = try Self.page(db, rows: rows)
            page.departures = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT seq, kind, name FROM library_departures WHERE owner = ? AND parent_id = ? AND seq > ? ORDER BY seq"),
                arguments: [owner, folderID, sequence]
            )
            .map { JournalDeparture(sequence: $0["seq"], kind: LibraryItemKind(rawValue: $0["kind"]) ?? .document, name: $0["name"]) }
            return page
        }
    }

    /// Journal `rows` (seq, kind, item_id, deleted), each joined with its item as it is now.
    private static func page(_ db: Database, rows: [Row]) throws -> JournalPage {
        let journal = try Row.fetchOne(db, sql: "SELECT epoch, horizon FROM library_journal")
        let latest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'library_changes'") ?? 0
        let shownIDs = { (kind: String) in rows.filter { $0["kind"] == kind && !$0["deleted"] }.map { $0["item_id"] as String } }
        let documentIDs = shownIDs("document")
        let folderIDs = shownIDs("folder")
        let documents = try DocumentWithPath.fetchAll(
            db,
            sql: "SELECT \(DocumentWithPath.selection) WHERE documents.id IN (\(databaseQuestionMarks(count: documentIDs.count)))",
            arguments: StatementArguments(documentIDs)
        )
        let folders = try FolderRecord.filter(keys: folderIDs).fetchAll(db)
        let documentsByID = Dictionary(documents.map { ($0.record.id, $0) }, uniquingKeysWith: { first, _ in first })
        let foldersByID = Dictionary(folders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let entries = rows.map { row -> (sequence: Int64, item: JournalItem) in
            let id: String = row["item_id"]
            let deleted: Bool = row["deleted"]
            let item: JournalItem
            if row["kind"] == "document" {
                item = (deleted ? nil : documentsByID[id]).map(JournalItem.document) ?? .deletedDocument(id)
            } else {
                item = (deleted ? nil : foldersByID[id]).map(JournalItem.folder) ?? .deletedFolder(id)
            }
            return (row["seq"], item)
        }
        return JournalPage(epoch: journal?["epoch"] ?? "", horizon: journal?["horizon"] ?? 0, latest: latest, entries: entries)
    }

    package func forgetDeletions(before date: Date) async throws -> Int {
        try await database.pool.write { db in
            let last = try Int64.fetchOne(
                db,
                sql: """
                    SELECT max(seq) FROM (
                        SELECT seq FROM library_changes WHERE deleted AND changed_at < ?
                        UNION ALL SELECT seq FROM library_departures WHERE changed_at < ?
                    )
                    """,
                arguments: [date, date]
            )
            guard let last else { return 0 }
            try db.execute(sql: "UPDATE library_journal SET horizon = max(horizon, ?)", arguments: [last])
            try db.execute(sql: "DELETE FROM library_departures WHERE changed_at < ?", arguments: [date])
            try db.execute(sql: "DELETE FROM library_changes WHERE deleted AND changed_at < ?", arguments: [date])
            return db.changesCount
        }
    }

    package func version(ofDocument id: String) async throws -> Int64? { try await version(kind: "document", id: id) }
    package func version(ofFolder id: String) async throws -> Int64? { try await version(kind: "folder", id: id) }

    private func version(kind: String, id: String) async throws -> Int64? {
        try await database.pool.read { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT seq FROM library_changes WHERE kind = ? AND item_id = ? AND NOT deleted"),
                arguments: [kind, id]
            )
        }
    }

    package func owner(ofFolder id: String) async throws -> String? {
        try await database.pool.read { db in try String.fetchOne(db, sql: "SELECT owner FROM folders WHERE id = ?", arguments: [id]) }
    }
}
