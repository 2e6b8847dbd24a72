import Foundation
import GatewayCore
import PostgresNIO

/// The library's rows in PostgreSQL, for gateways that share one database and one store
/// directory. The same rows as SQLite's: ids are text, "" is the root folder, and names and
/// paths compare byte by byte (`COLLATE "C"`), so `pathsUnder` and the unique constraints mean
/// exactly what they mean in SQLite.
package final class PostgresLibraryCatalog: LibraryCatalog {
    let database: PostgresDatabase

    package init(database: PostgresDatabase) {
        self.database = database
    }

    package func ping() async throws { try await database.query("SELECT 1") }

    // MARK: Documents

    package func document(id: String, owner: String?, readyOnly: Bool) async throws -> DocumentWithPath? {
        try await database.query(
            """
            SELECT \(unescaped: Self.documentSelection)
            WHERE documents.id = \(id) AND (\(owner)::text IS NULL OR documents.owner = \(owner))
              AND (NOT \(readyOnly) OR documents.state = 'ready')
            """
        ).first.map(Self.document)
    }

    package func documents(ids: [String], owner: String?) async throws -> [DocumentWithPath] {
        guard !ids.isEmpty else { return [] }
        return try await database.query(
            """
            SELECT \(unescaped: Self.documentSelection) WHERE documents.id = ANY(\(ids)) AND documents.state = 'ready'
              AND (\(owner)::text IS NULL OR documents.owner = \(owner))
            """
        ).map(Self.document)
    }

    package func documentNameTaken(owner: String, folderID: String, name: String) async throws -> Bool {
        try await !database.query("SELECT 1 FROM documents WHERE owner = \(owner) AND folder_id = \(folderID) AND name = \(name)").isEmpty
    }

    package func placement(ofDocument id: String, owner: String, to destination: FolderLookup?, name: String?) async throws -> DocumentPlacement? {
        // One connection for the three statements: one lease from the pool.
        try await database.withConnection { session in
            let found = try await session.query(
                "SELECT \(unescaped: Self.documentSelection) WHERE documents.id = \(id) AND documents.owner = \(owner) AND documents.state = 'ready'"
            )
            guard let document = try found.first.map(Self.document) else { return nil }
            let folder: (id: String, path: String)?
            switch destination {
            case nil: folder = (document.record.folderID, document.folderPath)
            case .root?: folder = ("", "")
            case .id(let id)?: folder = try await session.query(Self.folderByID(id, owner: owner)).first.map(Self.folder).readyPlace
            case .path(let path)?: folder = try await session.query(Self.folderByPath(path, owner: owner)).first.map(Self.folder).readyPlace
            }
            guard let folder else { return DocumentPlacement(document: document, folder: nil, nameTaken: false) }
            let desired = name ?? document.record.name
            let taken = try await session.query(
                "SELECT 1 FROM documents WHERE owner = \(owner) AND folder_id = \(folder.id) AND name = \(desired)"
            )
            return DocumentPlacement(document: document, folder: folder, nameTaken: !taken.isEmpty)
        }
    }

    package func insert(_ document: DocumentRecord) async throws {
        try await database.withConnection { try await Self.insert(document, in: $0) }
    }

    /// In transactions of 5,000 rows: 100,000 in one took about the 30 s a call may wait for
    /// PostgreSQL (`PostgresDatabase.answerTimeout`), and a busy machine went past it.
    package func insertAll(_ documents: [DocumentRecord]) async throws {
        for start in stride(from: 0, to: documents.count, by: 5_000) {
            let chunk = documents[start..<min(start + 5_000, documents.count)]
            try await database.transaction { session in
                for document in chunk { try await Self.insert(document, in: session) }
            }
        }
    }

    private static func insert(_ d: DocumentRecord, in session: PostgresSession) async throws {
        try await session.query(
            """
            INSERT INTO documents (id, owner, folder_id, name, size, sha256, page_count, title, author, subject, keywords, creator,
                producer, pdf_created_at, pdf_modified_at, pdf_version, page_width, page_height, encrypted, linearized, pdfa,
                state, path_before, staged_path, created_at, updated_at)
            VALUES (\(d.id), \(d.owner), \(d.folderID), \(d.name), \(d.size), \(d.sha256), \(d.pageCount), \(d.title), \(d.author),
                \(d.subject), \(d.keywords), \(d.creator), \(d.producer), \(d.pdfCreatedAt), \(d.pdfModifiedAt), \(d.pdfVersion),
                \(d.pageWidth), \(d.pageHeight), \(d.encrypted), \(d.linearized), \(d.pdfa), \(d.state.rawValue), \(d.pathBefore),
                \(d.stagedPath), \(d.createdAt), \(d.updatedAt))
            """
        )
    }

    @discardableResult
    package func update(_ d: DocumentRecord) async throws -> DocumentWithPath {
        // A row that is not ready (an operation's intent) has nothing for the index to follow:
        // one statement, no transaction around it.
        guard d.state == .ready else { return try Self.written(d, try await database.query(Self.update(d))).document }
        return try await database.transaction { session in
            let (written, before) = try Self.written(d, try await session.query(Self.update(d)))
            try await Self.followInIndex(before, d, in: session)
            return written
        }
    }

    /// The row as it was, the update, and the row it left joined to its folder's path, in one
    /// statement.
    private static func update(_ d: DocumentRecord) -> PostgresQuery {
        """
        WITH before AS (SELECT state, sha256, name, title, folder_id FROM documents WHERE id = \(d.id)),
        written AS (UPDATE documents SET owner = \(d.owner), folder_id = \(d.folderID), name = \(d.name), size = \(d.size),
            sha256 = \(d.sha256), page_count = \(d.pageCount), title = \(d.title), author = \(d.author), subject = \(d.subject),
            keywords = \(d.keywords), creator = \(d.creator), producer = \(d.producer), pdf_created_at = \(d.pdfCreatedAt),
            pdf_modified_at = \(d.pdfModifiedAt), pdf_version = \(d.pdfVersion), page_width = \(d.pageWidth),
            page_height = \(d.pageHeight), encrypted = \(d.encrypted), linearized = \(d.linearized), pdfa = \(d.pdfa),
            state = \(d.state.rawValue), path_before = \(d.pathBefore), staged_path = \(d.stagedPath), created_at = \(d.createdAt),
            updated_at = \(d.updatedAt)
        WHERE id = \(d.id) RETURNING *)
        SELECT \(unescaped: writtenColumns), before.state, before.sha256, before.name, before.title, before.folder_id
        FROM written LEFT JOIN folders ON folders.id = written.folder_id CROSS JOIN before
        """
    }

    private typealias RowBefore = (ready: Bool, sha256: String, name: String, title: String?, folderID: String)

    /// The written row of `update(_:)`'s answer, and the row as it was.
    private static func written(_ d: DocumentRecord, _ rows: [PostgresRow]) throws -> (document: DocumentWithPath, before: RowBefore) {
        guard let row = rows.first else { throw LibraryError(.storage, "document \(d.id) vanished while it was written") }
        let columns = row.makeRandomAccess()
        let first = DocumentWithPath.columns.count + 1
        let before = (
            ready: try columns[first].decode(String.self) == RowState.ready.rawValue,
            sha256: try columns[first + 1].decode(String.self),
            name: try columns[first + 2].decode(String.self),
            title: try columns[first + 3].decode(String?.self),
            folderID: try columns[first + 4].decode(String.self)
        )
        return (try document(row), before)
    }

    /// Keeps the search index in step with a document row, in the row's own transaction: a
    /// document that became ready gets an entry (its text pending until it is read), a ready one
    /// renamed or moved has its entry follow, and one whose file changed has its text read again.
    /// The same rule as the SQLite catalog's.
    private static func followInIndex(
        _ before: RowBefore,
        _ after: DocumentRecord,
        in session: PostgresSession
    ) async throws {
        guard after.state == .ready else { return }
        guard before.ready, before.sha256 == after.sha256 else {
            return try await PostgresSearchIndex.write(SearchEntry(after, content: .pending), in: session)
        }
        if before.name != after.name || before.title != after.title {
            try await PostgresSearchIndex.rename(documentID: after.id, name: after.name, title: after.title, in: session)
        }
        if before.folderID != after.folderID {
            try await PostgresSearchIndex.move(documentID: after.id, folderID: after.folderID, in: session)
        }
    }

    package func deleteDocument(id: String) async throws {
        // One statement, so the entry goes with the row.
        try await database.query(
            "WITH gone AS (DELETE FROM documents WHERE id = \(id)) DELETE FROM document_index WHERE document_id = \(id)"
        )
    }

    package func listDocuments(_ query: DocumentQuery, in lookup: FolderLookup, after cursor: ListCursor?) async throws -> FolderListing? {
        // One connection for both statements: one lease from the pool.
        try await database.withConnection { session in
            let folder: FolderRecord?
            switch lookup {
            case .root: folder = nil
            case .id(let id): folder = try await session.query(Self.folderByID(id, owner: query.owner)).first.map(Self.folder)
            case .path(let path): folder = try await session.query(Self.folderByPath(path, owner: query.owner)).first.map(Self.folder)
            }
            if lookup != .root && folder?.state != .ready { return nil }
            return FolderListing(
                folder: folder,
                documents: try await session.query(Self.listing(query, in: folder, after: cursor)).map(Self.document)
            )
        }
    }

    private static func folderByID(_ id: String, owner: String) -> PostgresQuery {
        "SELECT \(unescaped: folderColumns) FROM folders WHERE id = \(id) AND owner = \(owner)"
    }

    private static func folderByPath(_ path: String, owner: String) -> PostgresQuery {
        "SELECT \(unescaped: folderColumns) FROM folders WHERE owner = \(owner) AND path = \(path)"
    }

    private static func listing(_ query: DocumentQuery, in folder: FolderRecord?, after cursor: ListCursor?) throws -> PostgresQuery {
        let key = query.sort.field == .name ? Self.foldedName("documents.name") : "documents." + query.sort.field.rawValue
        let direction = query.sort.descending ? "DESC" : "ASC"
        let comparison = query.sort.descending ? "<" : ">"
        let sql = PostgresQuery(unsafeSQL: "SELECT \(Self.documentSelection) WHERE documents.owner = $1 AND documents.state = 'ready'")
        var bindings = PostgresBindings()
        bindings.append(query.owner)
        /// Appends `value` as the next parameter and returns its placeholder.
        func parameter<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        var conditions: [String] = []
        if !query.recursive {
            conditions.append("documents.folder_id = \(parameter(folder?.id ?? ""))")
        } else if let folder {
            conditions.append(
                "documents.folder_id IN (SELECT id FROM folders WHERE owner = $1 AND (path = \(parameter(folder.path)) OR "
                    + "(path > \(parameter(folder.path + "/")) AND path < \(parameter(folder.path + "0")))))"
            )
        }
        if let pattern = LibraryNames.likePattern(query.search) {
            let placeholder = parameter(pattern)
            conditions.append("(documents.name ILIKE \(placeholder) ESCAPE '\\' OR documents.title ILIKE \(placeholder) ESCAPE '\\')")
        }
        if let cursor {
            let value: String
            switch (query.sort.field, cursor.value) {
            case (.name, .text(let name)): value = Self.foldedName(parameter(name) + "::text")
            case (.createdAt, .integer(let micros)), (.updatedAt, .integer(let micros)):
                value = "(timestamptz 'epoch' + \(parameter(micros)) * interval '1 microsecond')"
            case (.size, .integer(let int)), (.pageCount, .integer(let int)): value = parameter(int)
            default:
                throw LibraryError(.invalidCursor, "cursor does not fit sort '\(query.sort)'; start again without a cursor")
            }
            let id = parameter(cursor.id)
            conditions.append("(\(key) \(comparison) \(value) OR (\(key) = \(value) AND documents.id \(comparison) \(id)))")
        }
        let tail =
            conditions.map { " AND " + $0 }.joined()
            + " ORDER BY \(key) \(direction), documents.id \(direction) LIMIT \(query.limit + 1)"
        return PostgresQuery(unsafeSQL: sql.sql + tail, binds: bindings)
    }

    /// Dates as whole microseconds since 1970, PostgreSQL's own precision, so a page boundary
    /// compares exactly.
    package func sortValue(of document: DocumentRecord, _ field: DocumentSortField) -> SortValue {
        func micros(_ date: Date) -> SortValue { .integer(Int64((date.timeIntervalSince1970 * 1_000_000).rounded())) }
        switch field {
        case .name: return .text(document.name)
        case .createdAt: return micros(document.createdAt)
        case .updatedAt: return micros(document.updatedAt)
        case .size: return .integer(document.size)
        case .pageCount: return .integer(Int64(document.pageCount))
        }
    }

    // MARK: Folders

    package func folder(id: String, owner: String) async throws -> FolderRecord? {
        try await database.query(Self.folderByID(id, owner: owner)).first.map(Self.folder)
    }

    package func folder(owner: String, path: String) async throws -> FolderRecord? {
        try await database.query(Self.folderByPath(path, owner: owner)).first.map(Self.folder)
    }

    package func childFolder(owner: String, parentID: String, name: String) async throws -> FolderRecord? {
        try await database.query(
            "SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND parent_id = \(parentID) AND name = \(name)"
        ).first.map(Self.folder)
    }

    package func folders(owner: String, parentID: String) async throws -> [FolderRecord] {
        try await database.query(
            """
            SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND state = 'ready' AND parent_id = \(parentID)
            ORDER BY path
            """
        ).map(Self.folder)
    }

    package func folders(owner: String, under path: String?) async throws -> [FolderRecord] {
        try await database.query(
            """
            SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND state = 'ready'
              AND (\(path)::text IS NULL OR (path > \(path.map { $0 + "/" }) AND path < \(path.map { $0 + "0" })))
            ORDER BY path
            """
        ).map(Self.folder)
    }

    package func contents(ofFolder id: String) async throws -> (documents: Int, folders: Int) {
        let row = try await database.query(
            """
            SELECT (SELECT count(*) FROM documents WHERE folder_id = \(id)), (SELECT count(*) FROM folders WHERE parent_id = \(id))
            """
        ).first
        guard let row else { return (0, 0) }
        let (documents, folders) = try row.decode((Int64, Int64).self)
        return (Int(documents), Int(folders))
    }

    package func insert(_ f: FolderRecord) async throws {
        try await database.query(
            """
            INSERT INTO folders (id, owner, parent_id, name, path, state, path_before, created_at, updated_at)
            VALUES (\(f.id), \(f.owner), \(f.parentID), \(f.name), \(f.path), \(f.state.rawValue), \(f.pathBefore), \(f.createdAt), \(f.updatedAt))
            """
        )
    }

    package func update(_ f: FolderRecord, subtreeFrom oldPath: String?) async throws {
        try await database.transaction { session in
            // Subfolders first: their paths move out from under the old path before the folder's
            // own row takes the new one, so neither step meets the (owner, path) constraint.
            if let oldPath, oldPath != f.path {
                try await session.query(
                    """
                    UPDATE folders SET path = \(f.path) || substr(path, \(Int32(oldPath.unicodeScalars.count + 1)))
                    WHERE owner = \(f.owner) AND path > \(oldPath + "/") AND path < \(oldPath + "0")
                    """
                )  // substr counts characters
            }
            try await session.query(
                """
                UPDATE folders SET owner = \(f.owner), parent_id = \(f.parentID), name = \(f.name), path = \(f.path), state = \(f.state.rawValue),
                    path_before = \(f.pathBefore), created_at = \(f.createdAt), updated_at = \(f.updatedAt)
                WHERE id = \(f.id)
                """
            )
            // Its documents' scope tokens name every folder above them.
            if let oldPath, oldPath != f.path { try await PostgresSearchIndex.moveFolder(id: f.id, in: session) }
        }
    }

    package func deleteFolder(id: String) async throws {
        try await database.query("DELETE FROM folders WHERE id = \(id)")
    }

    package func deleteTree(owner: String, path: String) async throws -> [String] {
        try await database.transaction { session in
            let folders = "owner = $1 AND (path = $2 OR (path > $3 AND path < $4))"
            var bindings = PostgresBindings()
            bindings.append(owner)
            bindings.append(path)
            bindings.append(path + "/")
            bindings.append(path + "0")
            let removed = try await session.query(
                PostgresQuery(
                    unsafeSQL: "DELETE FROM documents WHERE folder_id IN (SELECT id FROM folders WHERE \(folders)) RETURNING id",
                    binds: bindings
                )
            )
            try await session.query(PostgresQuery(unsafeSQL: "DELETE FROM folders WHERE \(folders)", binds: bindings))
            let ids = try removed.map { try $0.decode(String.self) }
            try await PostgresSearchIndex.delete(documentIDs: ids, in: session)
            return ids
        }
    }

    // MARK: Recovery and fsck

    package func unfinishedDocuments() async throws -> [DocumentWithPath] {
        try await database.query(
            "SELECT \(unescaped: Self.documentSelection) WHERE documents.state != 'ready' OR documents.path_before IS NOT NULL"
        ).map(Self.document)
    }

    package func unfinishedFolders() async throws -> [FolderRecord] {
        try await database.query(
            "SELECT \(unescaped: Self.folderColumns) FROM folders WHERE state != 'ready' OR path_before IS NOT NULL ORDER BY path"
        )
        .map(Self.folder)
    }

    package func readyDocuments() async throws -> [DocumentWithPath] {
        try await database.query("SELECT \(unescaped: Self.documentSelection) WHERE documents.state = 'ready'").map(Self.document)
    }

    package func readyFolders() async throws -> [FolderRecord] {
        try await database.query("SELECT \(unescaped: Self.folderColumns) FROM folders WHERE state = 'ready'").map(Self.folder)
    }

    package func stagedPaths() async throws -> Set<String> {
        Set(try await database.query("SELECT staged_path FROM documents WHERE staged_path IS NOT NULL").map { try $0.decode(String.self) })
    }

    // MARK: Rows

    /// SQLite's `COLLATE NOCASE`, which folds ASCII letters only, as an immutable expression
    /// the name indexes are built on: both backends page through names in the same order.
    static func foldedName(_ expression: String) -> String {
        "(translate(\(expression), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\")"
    }

    static let documentSelection =
        DocumentWithPath.columns.map { "documents." + $0.rawValue }.joined(separator: ", ")
        + ", COALESCE(folders.path, '') AS folder_path FROM documents LEFT JOIN folders ON folders.id = documents.folder_id"

    /// `documentSelection`'s columns over the row an `UPDATE … RETURNING *` named `written` left,
    /// joined to its folder.
    static let writtenColumns =
        DocumentWithPath.columns.map { "written." + $0.rawValue }.joined(separator: ", ") + ", COALESCE(folders.path, '') AS folder_path"

    static let folderColumns = "id, owner, parent_id, name, path, state, path_before, created_at, updated_at"

    /// A row of `documentSelection`, column by column in `DocumentWithPath.columns` order.
    static func document(_ row: PostgresRow) throws -> DocumentWithPath {
        let columns = row.makeRandomAccess()
        var index = 0
        func next<Value: PostgresDecodable>(_: Value.Type = Value.self) throws -> Value {
            defer { index += 1 }
            return try columns[index].decode(Value.self)
        }
        let id: String = try next()
        let record = DocumentRecord(
            id: id,
            owner: try next(),
            folderID: try next(),
            name: try next(),
            size: try next(),
            sha256: try next(),
            pageCount: try next(),
            title: try next(),
            author: try next(),
            subject: try next(),
            keywords: try next(),
            creator: try next(),
            producer: try next(),
            pdfCreatedAt: try next(),
            pdfModifiedAt: try next(),
            pdfVersion: try next(),
            pageWidth: try next(),
            pageHeight: try next(),
            encrypted: try next(),
            linearized: try next(),
            pdfa: try next(),
            state: try state(next(), of: id),
            pathBefore: try next(),
            stagedPath: try next(),
            createdAt: try next(),
            updatedAt: try next()
        )
        return DocumentWithPath(record: record, folderPath: try next())
    }

    static func folder(_ row: PostgresRow) throws -> FolderRecord {
        let c = row.makeRandomAccess()
        let id = try c[0].decode(String.self)
        return FolderRecord(
            id: id,
            owner: try c[1].decode(String.self),
            parentID: try c[2].decode(String.self),
            name: try c[3].decode(String.self),
            path: try c[4].decode(String.self),
            state: try state(c[5].decode(String.self), of: id),
            pathBefore: try c[6].decode(String?.self),
            createdAt: try c[7].decode(Date.self),
            updatedAt: try c[8].decode(Date.self)
        )
    }

    private static func state(_ text: String, of id: String) throws -> RowState {
        guard let state = RowState(rawValue: text) else { throw LibraryError(.storage, "row \(id) has unknown state '\(text)'") }
        return state
    }
}
