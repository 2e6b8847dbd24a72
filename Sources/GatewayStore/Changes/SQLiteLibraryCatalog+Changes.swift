import Foundation
import GRDB
import GatewayLibraryModel

extension SQLiteLibraryCatalog {
    package func changes(owner: String, after sequence: Int64, limit: Int) async throws -> JournalPage {
        try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.journalColumns) FROM library_changes c \(Self.shownDocument)
                        WHERE c.owner = ? AND c.seq > ? ORDER BY c.seq LIMIT ?
                        """
                ),
                arguments: [owner, sequence, limit]
            )
            return try Self.page(db, rows: rows)
        }
    }

    package func changes(owner: String, inFolder folderID: String, after sequence: Int64) async throws -> JournalPage {
        try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.journalColumns) FROM library_changes c \(Self.shownDocument)
                            WHERE c.kind = 'document' AND documents.owner = ? AND documents.folder_id = ? AND documents.state = 'ready' AND c.seq > ?
                        UNION ALL
                        SELECT \(Self.journalColumns) FROM library_changes c \(Self.shownDocument)
                            JOIN folders f ON c.kind = 'folder' AND f.id = c.item_id
                            WHERE f.owner = ? AND f.parent_id = ? AND f.state = 'ready' AND c.seq > ?
                        ORDER BY \(DocumentWithPath.columns.count + 1)
                        """
                ),
                arguments: [owner, folderID, sequence, owner, folderID, sequence]
            )
            var page = try Self.page(db, rows: rows)
            page.departures = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT seq, kind, name FROM library_departures WHERE owner = ? AND parent_id = ? AND seq > ? ORDER BY seq"),
                arguments: [owner, folderID, sequence]
            )
            .map { JournalDeparture(sequence: $0[0], kind: LibraryItemKind(rawValue: $0[1]) ?? .document, name: $0[2]) }
            return page
        }
    }

    /// A journal row with its document, if it is one that is shown, in one read: the document's
    /// columns as `DocumentWithPath.record(row:)` reads them, then `seq`, `kind`, `item_id` and
    /// `deleted`. One statement, cached, rather than a second one with an id list per page: the
    /// change feed is what a syncing client reads most. The folder's path is not joined: a
    /// page's documents lie in a few folders, looked up once each (`FolderPaths`), where a join
    /// sought the folder again for every row.
    private static let journalColumns =
        DocumentWithPath.columns.map { "documents." + $0.rawValue }.joined(separator: ", ")
        + ", c.seq, c.kind, c.item_id, c.deleted"
    private static let shownDocument = """
        LEFT JOIN documents ON c.kind = 'document' AND NOT c.deleted AND documents.id = c.item_id
        """

    /// Rows of `journalColumns`, each with its item as it is now. Read from the cursor, so each
    /// document is decoded straight from the statement into the page, without a copy of the row
    /// or of the document first. Folders are few; they are read after, in one statement.
    private static func page(_ db: Database, rows: RowCursor) throws -> JournalPage {
        let at = DocumentWithPath.columns.count
        var entries: [(sequence: Int64, item: JournalItem)] = []
        var folderAt: [String: Int] = [:]
        var paths = FolderPaths()
        while let row = try rows.next() {
            let sequence: Int64 = row[at]
            let kind: String = row[at + 1]
            let isDocument = kind == "document"
            let deleted: Bool = row[at + 3]
            if isDocument {
                guard !deleted, !row.hasNull(atIndex: 0) else {
                    entries.append((sequence, .deletedDocument(row[at + 2])))
                    continue
                }
                let record = try DocumentWithPath.record(row: row)
                let document = DocumentWithPath(record: record, folderPath: try paths.path(of: record.folderID, in: db))
                entries.append((sequence, .document(document)))
            } else {
                // Gone unless the folder read below shows it.
                let id: String = row[at + 2]
                if !deleted { folderAt[id] = entries.count }
                entries.append((sequence, .deletedFolder(id)))
            }
        }
        if !folderAt.isEmpty {
            for folder in try FolderRecord.filter(keys: Array(folderAt.keys)).fetchAll(db) {
                if let index = folderAt[folder.id] { entries[index].item = .folder(folder) }
            }
        }
        let journal = try Row.fetchOne(db, sql: "SELECT epoch, horizon FROM library_journal")
        let latest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'library_changes'") ?? 0
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

/// Folder paths by id for one page of the feed; the root (`""`) and a folder gone read as `""`,
/// as the listing's `COALESCE(folders.path, '')` does.
private struct FolderPaths {
    private var known: [String: String] = ["": ""]

    mutating func path(of folderID: String, in db: Database) throws -> String {
        if let path = known[folderID] { return path }
        let path =
            try String.fetchOne(db.cachedStatement(sql: "SELECT path FROM folders WHERE id = ?"), arguments: [folderID]) ?? ""
        known[folderID] = path
        return path
    }
}
