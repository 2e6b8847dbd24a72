import Foundation
import GRDB
import GatewayLibraryModel

/// The library's rows in the store's own SQLite database: the embedded default.
package final class SQLiteLibraryCatalog: LibraryCatalog {
    package let database: GatewayDatabase

    package init(database: GatewayDatabase) {
        self.database = database
    }

    private var pool: DatabasePool { database.pool }

    package func ping() async throws { try await database.ping() }

    // MARK: Documents

    package func document(id: String, owner: String?, readyOnly: Bool) async throws -> DocumentWithPath? {
        var sql = "SELECT \(DocumentWithPath.selection) WHERE documents.id = ?"
        var arguments: StatementArguments = [id]
        if let owner {
            sql += " AND documents.owner = ?"
            _ = arguments.append(contentsOf: [owner])
        }
        if readyOnly { sql += " AND documents.state = 'ready'" }
        return try await pool.read { [sql, arguments] db in try DocumentWithPath.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) }
    }

    package func documents(ids: [String], owner: String?) async throws -> [DocumentWithPath] {
        guard !ids.isEmpty else { return [] }
        // `+` keeps the planner on the primary key: on the (owner, …) index instead it walks
        // every one of the owner's documents, most of a search's time in a large library.
        let sql = """
            SELECT \(DocumentWithPath.selection)
            WHERE documents.id IN (\(databaseQuestionMarks(count: ids.count))) AND +documents.state = 'ready'
            \(owner == nil ? "" : "AND +documents.owner = ?")
            """
        return try await pool.read { db in
            try DocumentWithPath.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(ids + (owner.map { [$0] } ?? [])))
        }
    }

    package func documentNameTaken(owner: String, folderID: String, name: String) async throws -> Bool {
        try await pool.read { db in
            try DocumentRecord.filter(
                DocumentRecord.Columns.owner == owner && DocumentRecord.Columns.folderID == folderID && DocumentRecord.Columns.name == name
            ).fetchCount(db) > 0
        }
    }

    package func document(owner: String, folderID: String, name: String) async throws -> DocumentWithPath? {
        try await pool.read { db in
            try DocumentWithPath.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT \(DocumentWithPath.selection) WHERE documents.owner = ? AND documents.folder_id = ? AND documents.name = ? AND documents.state = 'ready'"
                ),
                arguments: [owner, folderID, name]
            )
        }
    }

    package func placement(ofDocument id: String, owner: String, to destination: FolderLookup?, name: String?) async throws -> DocumentPlacement? {
        try await pool.read { db in
            guard
                let document = try DocumentWithPath.fetchOne(
                    db.cachedStatement(sql: Self.readyDocumentOfOwner),
                    arguments: [id, owner]
                )
            else { return nil }
            let folder: (id: String, path: String)?
            switch destination {
            case nil: folder = (document.record.folderID, document.folderPath)
            case .root?: folder = ("", "")
            case .id(let id)?:
                folder = try Self.folder(db, sql: "SELECT * FROM folders WHERE id = ? AND owner = ?", [id, owner]).readyPlace
            case .path(let path)?:
                folder = try Self.folder(db, sql: "SELECT * FROM folders WHERE owner = ? AND path = ?", [owner, path]).readyPlace
            }
            guard let folder else { return DocumentPlacement(document: document, folder: nil, nameTaken: false) }
            let taken = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM documents WHERE owner = ? AND folder_id = ? AND name = ?)"),
                arguments: [owner, folder.id, name ?? document.record.name]
            )
            return DocumentPlacement(document: document, folder: folder, nameTaken: taken ?? false)
        }
    }

    private static let readyDocumentOfOwner =
        "SELECT \(DocumentWithPath.selection) WHERE documents.id = ? AND documents.owner = ? AND documents.state = 'ready'"

    package func insert(_ document: DocumentRecord) async throws {
        try await pool.write { db in try document.insert(db) }
    }

    package func insertAll(count: Int, _ record: @escaping @Sendable (Int) -> DocumentRecord) async throws {
        guard count > 0 else { return }
        let columns = Array(try record(0).databaseDictionary.keys)
        let row = "(" + repeatElement("?", count: columns.count).joined(separator: ", ") + ")"
        let head = "INSERT INTO documents (" + columns.map { "\"\($0)\"" }.joined(separator: ", ") + ") VALUES "
        // Rows by the hundred: a statement that fires the change journal's trigger keeps the first
        // image of each page it touches, and rows that land on the same pages share that cost.
        let rowsPerStatement = 500
        try await pool.write { db in
            for start in stride(from: 0, to: count, by: rowsPerStatement) {
                let rows = start..<min(start + rowsPerStatement, count)
                var values: [DatabaseValue] = []
                values.reserveCapacity(rows.count * columns.count)
                for i in rows {
                    let encoded = try record(i).databaseDictionary
                    values += columns.map { encoded[$0] ?? .null }
                }
                try db.execute(sql: head + repeatElement(row, count: rows.count).joined(separator: ", "), arguments: StatementArguments(values))
            }
        }
    }

    @discardableResult
    package func update(_ document: DocumentRecord) async throws -> DocumentWithPath {
        try await pool.write { db in
            // Cached statements: a rename or move writes twice, and compiling each lookup cost
            // more than running it.
            let before = try DocumentRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM documents WHERE id = ?"), arguments: [document.id])
            // Only the columns that changed: SQLite then leaves alone every index (of twelve) and
            // the change journal's trigger whose columns the write does not name. A rename's
            // second write, which only clears `path_before`, touches two pages, not fourteen.
            if let before { try document.updateChanges(db, from: before) } else { try document.update(db) }
            try Self.followInIndex(before, document, in: db)
            guard let stored = try DocumentWithPath.fetchOne(db.cachedStatement(sql: Self.documentByID), arguments: [document.id]) else {
                throw LibraryError(.storage, "document \(document.id) vanished while it was written")
            }
            return stored
        }
    }

    private static let documentByID = "SELECT \(DocumentWithPath.selection) WHERE documents.id = ?"

    package func deleteDocument(id: String) async throws {
        try await pool.write { db in
            _ = try DocumentRecord.deleteOne(db, key: id)
            try SQLiteSearchIndex.delete(documentIDs: [id], in: db)
        }
    }

    /// Keeps the search index in step with a document row, in the row's own transaction: a
    /// document that became ready gets an entry (its text pending until it is read), a ready one
    /// renamed or moved has its entry follow — at the write that records the intent, and again
    /// if that is undone — and one whose file changed has its text read again.
    static func followInIndex(_ before: DocumentRecord?, _ after: DocumentRecord, in db: Database) throws {
        guard after.state == .ready else { return }
        guard let before, before.state == .ready, before.sha256 == after.sha256 else {
            try SQLiteSearchIndex.write(SearchEntry(after, content: .pending), in: db)
            return
        }
        if before.name != after.name || before.title != after.title {
            try SQLiteSearchIndex.rename(documentID: after.id, name: after.name, title: after.title, in: db)
        }
        if before.folderID != after.folderID { try SQLiteSearchIndex.move(documentID: after.id, folderID: after.folderID, in: db) }
    }

    package func listDocuments(_ query: DocumentQuery, in lookup: FolderLookup, after: ListCursor?) async throws -> FolderListing? {
        try await pool.read { db in
            let folder: FolderRecord?
            switch lookup {
            case .root: folder = nil
            case .id(let id): folder = try Self.folder(db, sql: "SELECT * FROM folders WHERE id = ? AND owner = ?", [id, query.owner])
            case .path(let path): folder = try Self.folder(db, sql: "SELECT * FROM folders WHERE owner = ? AND path = ?", [query.owner, path])
            }
            if lookup != .root && folder?.state != .ready { return nil }
            return FolderListing(folder: folder, documents: try Self.documents(db, query, in: folder, after: after))
        }
    }

    /// A folder by a cached statement: every listing by folder starts with one.
    private static func folder(_ db: Database, sql: String, _ arguments: StatementArguments) throws -> FolderRecord? {
        try FolderRecord.fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    private static func documents(_ db: Database, _ query: DocumentQuery, in folder: FolderRecord?, after: ListCursor?) throws -> [DocumentWithPath] {
        let column = "documents." + query.sort.field.rawValue
        let key = query.sort.field == .name ? column + " COLLATE NOCASE" : column
        let direction = query.sort.descending ? "DESC" : "ASC"
        let comparison = query.sort.descending ? "<" : ">"

        var conditions = ["documents.owner = ?", "documents.state = 'ready'"]
        var arguments: StatementArguments = [query.owner]
        if !query.recursive {
            conditions.append("documents.folder_id = ?")
            _ = arguments.append(contentsOf: [folder?.id ?? ""])
        } else if let folder {
            let under = Self.pathsUnder(folder.path)
            conditions.append("documents.folder_id IN (SELECT id FROM folders WHERE owner = ? AND (path = ? OR \(under.sql)))")
            _ = arguments.append(contentsOf: [query.owner, folder.path] + under.arguments)
        }
        if let pattern = LibraryNames.likePattern(query.search) {
            conditions.append("(documents.name LIKE ? ESCAPE '\\' OR documents.title LIKE ? ESCAPE '\\')")
            _ = arguments.append(contentsOf: [pattern, pattern])
        }
        if let after {
            let value: DatabaseValue
            switch after.value {
            case .text(let text): value = text.databaseValue
            case .integer(let int): value = int.databaseValue
            case .real(let double): value = double.databaseValue
            }
            conditions.append("(\(key) \(comparison) ? OR (\(key) = ? AND documents.id \(comparison) ?))")
            _ = arguments.append(contentsOf: [value, value, after.id])
        }
        let sql = """
            SELECT \(DocumentWithPath.selection)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(key) \(direction), documents.id \(direction)
            LIMIT \(query.limit + 1)
            """
        // Cached: a listing's SQL has a handful of shapes, and compiling it cost as much as running it.
        return try DocumentWithPath.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// Dates as GRDB stores them (text), so the cursor compares like the index.
    package func sortValue(of document: DocumentRecord, _ field: DocumentSortField) -> SortValue {
        func text(_ date: Date) -> SortValue {
            if case .string(let text) = date.databaseValue.storage { return .text(text) }
            return .real(date.timeIntervalSince1970)
        }
        switch field {
        case .name: return .text(document.name)
        case .createdAt: return text(document.createdAt)
        case .updatedAt: return text(document.updatedAt)
        case .size: return .integer(document.size)
        case .pageCount: return .integer(Int64(document.pageCount))
        }
    }

    // MARK: Folders

    package func folder(id: String, owner: String) async throws -> FolderRecord? {
        try await pool.read { db in try Self.folder(db, sql: "SELECT * FROM folders WHERE id = ? AND owner = ?", [id, owner]) }
    }

    package func folder(owner: String, path: String) async throws -> FolderRecord? {
        try await pool.read { db in try Self.folder(db, sql: "SELECT * FROM folders WHERE owner = ? AND path = ?", [owner, path]) }
    }

    package func childFolder(owner: String, parentID: String, name: String) async throws -> FolderRecord? {
        try await pool.read { db in
            try FolderRecord.filter(
                FolderRecord.Columns.owner == owner && FolderRecord.Columns.parentID == parentID && FolderRecord.Columns.name == name
            ).fetchOne(db)
        }
    }

    package func folders(owner: String, parentID: String) async throws -> [FolderRecord] {
        try await pool.read { db in
            try FolderRecord.filter(
                FolderRecord.Columns.owner == owner && FolderRecord.Columns.state == RowState.ready && FolderRecord.Columns.parentID == parentID
            ).order(FolderRecord.Columns.path).fetchAll(db)
        }
    }

    package func folders(owner: String, under path: String?) async throws -> [FolderRecord] {
        try await pool.read { db in
            var request = FolderRecord.filter(FolderRecord.Columns.owner == owner && FolderRecord.Columns.state == RowState.ready)
            if let path {
                let under = Self.pathsUnder(path)
                request = request.filter(sql: under.sql, arguments: under.arguments)
            }
            return try request.order(FolderRecord.Columns.path).fetchAll(db)
        }
    }

    package func contents(ofFolder id: String) async throws -> (documents: Int, folders: Int) {
        try await pool.read { db in
            (
                try DocumentRecord.filter(DocumentRecord.Columns.folderID == id).fetchCount(db),
                try FolderRecord.filter(FolderRecord.Columns.parentID == id).fetchCount(db)
            )
        }
    }

    package func insert(_ folder: FolderRecord) async throws {
        try await pool.write { db in try folder.insert(db) }
    }

    package func update(_ folder: FolderRecord, subtreeFrom oldPath: String?) async throws {
        try await pool.write { db in
            if let before = try FolderRecord.fetchOne(db, key: folder.id) {
                try folder.updateChanges(db, from: before)  // as for documents: only what changed
            } else {
                try folder.update(db)
            }
            guard let oldPath, oldPath != folder.path else { return }
            let under = Self.pathsUnder(oldPath)
            try db.execute(
                sql: "UPDATE folders SET path = ? || substr(path, ?) WHERE owner = ? AND \(under.sql)",
                arguments: [folder.path, oldPath.unicodeScalars.count + 1, folder.owner] + under.arguments
            )  // substr counts characters
            // Its documents' scope tokens name every folder above them.
            try SQLiteSearchIndex.moveFolder(id: folder.id, in: db)
        }
    }

    package func deleteFolder(id: String) async throws {
        _ = try await pool.write { db in try FolderRecord.deleteOne(db, key: id) }
    }

    package func deleteTree(owner: String, path: String) async throws -> [String] {
        try await pool.write { db in
            let under = Self.pathsUnder(path)
            let subtree = FolderRecord.filter(FolderRecord.Columns.owner == owner)
                .filter(sql: "(path = ? OR \(under.sql))", arguments: [path] + under.arguments)
            let folderIDs = try subtree.select(FolderRecord.Columns.id, as: String.self).fetchAll(db)
            let documents = DocumentRecord.filter(folderIDs.contains(DocumentRecord.Columns.folderID))
            let documentIDs = try documents.select(DocumentRecord.Columns.id, as: String.self).fetchAll(db)
            try documents.deleteAll(db)
            try subtree.deleteAll(db)
            try SQLiteSearchIndex.delete(documentIDs: documentIDs, in: db)
            return documentIDs
        }
    }

    // MARK: Recovery and fsck

    package func unfinishedDocuments() async throws -> [DocumentWithPath] {
        try await pool.read { db in
            try DocumentWithPath.fetchAll(
                db,
                sql: "SELECT \(DocumentWithPath.selection) WHERE \(Self.unfinished("documents."))"
            )
        }
    }

    /// Rows an operation left half done, found through the `(state, path_before)` index: three
    /// ranges, where `state != 'ready' OR path_before IS NOT NULL` read the whole table, and
    /// through the map every page of the file, at every start.
    private static func unfinished(_ table: String = "") -> String {
        "\(table)state < 'ready' OR \(table)state > 'ready' OR (\(table)state = 'ready' AND \(table)path_before IS NOT NULL)"
    }

    package func unfinishedFolders() async throws -> [FolderRecord] {
        try await pool.read { db in
            try FolderRecord.filter(sql: Self.unfinished()).order(FolderRecord.Columns.path).fetchAll(db)
        }
    }

    package func readyDocuments() async throws -> [DocumentWithPath] {
        try await pool.read { db in try DocumentWithPath.fetchAll(db, sql: "SELECT \(DocumentWithPath.selection) WHERE documents.state = 'ready'") }
    }

    package func readyFolders() async throws -> [FolderRecord] {
        try await pool.read { db in try FolderRecord.filter(FolderRecord.Columns.state == RowState.ready).fetchAll(db) }
    }

    package func stagedPaths() async throws -> Set<String> {
        Set(try await pool.read { db in try String.fetchAll(db, sql: "SELECT staged_path FROM documents WHERE staged_path IS NOT NULL") })
    }

    /// An SQL condition on the folders' `path` column matching the paths strictly under `path`.
    ///
    /// Not `LIKE 'A/%'`: SQLite's LIKE ignores ASCII case, and folder `a` is not folder `A`.
    /// Under the default binary collation every path below `A` sorts after `A/` and before `A0`
    /// ('0' is the byte after '/'), and nothing else does, so two comparisons match exactly and
    /// use the (owner, path) index.
    static func pathsUnder(_ path: String) -> (sql: String, arguments: StatementArguments) {
        ("(path > ? AND path < ?)", [path + "/", path + "0"])
    }
}
