import Foundation
import GatewayLibraryModel
import GatewaySearchText
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

    package func document(owner: String, folderID: String, name: String) async throws -> DocumentWithPath? {
        try await database.query(
            """
            SELECT \(unescaped: Self.documentSelection)
            WHERE documents.owner = \(owner) AND documents.folder_id = \(folderID) AND documents.name = \(name) AND documents.state = 'ready'
            """
        ).first.map(Self.document)
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

    /// In transactions of 5,000 rows: a whole seeding in one can outlast the time a call may wait
    /// for PostgreSQL (`PostgresDatabase.answerTimeout`) on a busy machine.
    package func insertAll(count: Int, _ record: @escaping @Sendable (Int) -> DocumentRecord) async throws {
        for start in stride(from: 0, to: count, by: 5_000) {
            try await database.transaction { session in
                for i in start..<min(start + 5_000, count) { try await Self.insert(record(i), in: session) }
            }
        }
    }

    private static func insert(_ d: DocumentRecord, in session: PostgresSession) async throws {
        try await session.query(
            """
            INSERT INTO documents (id, owner, folder_id, name, size, sha256, page_count, title, author, subject, keywords, creator,
                producer, pdf_created_at, pdf_modified_at, pdf_version, page_width, page_height, encrypted, linearized, pdfa,
                state, path_before, staged_path, created_at, updated_at, warning)
            VALUES (\(d.id), \(d.owner), \(d.folderID), \(d.name), \(d.size), \(d.sha256), \(d.pageCount), \(d.title), \(d.author),
                \(d.subject), \(d.keywords), \(d.creator), \(d.producer), \(d.pdfCreatedAt), \(d.pdfModifiedAt), \(d.pdfVersion),
                \(d.pageWidth), \(d.pageHeight), \(d.encrypted), \(d.linearized), \(d.pdfa), \(d.state.rawValue), \(d.pathBefore),
                \(d.stagedPath), \(d.createdAt), \(d.updatedAt), \(d.warning))
            """
        )
    }

    /// One statement, whether or not the index has anything to follow: an operation's intent (a
    /// row not ready) leaves the index alone, and a row written ready takes its entry along in
    /// the same statement (`updateFollowingIndex`), which commits both or neither without a
    /// transaction's three more round trips.
    @discardableResult
    package func update(_ d: DocumentRecord) async throws -> DocumentWithPath {
        let rows = try await d.state == .ready ? database.write(ReadyDocumentWrite(d)) : database.query(Self.update(d))
        guard let row = rows.first else { throw LibraryError(.storage, "document \(d.id) vanished while it was written") }
        return try Self.document(row)
    }

    /// `updateFollowingIndex` prepared once per connection: otherwise PostgreSQL plans its
    /// statements anew for each filing, which is most of the filing's time. Every record gives
    /// the same SQL text (each value, null or not, is one parameter), so the text
    /// of any record is the statement's; each parameter's type is its column's or its
    /// function's, which is what its value is encoded as.
    struct ReadyDocumentWrite: PostgresPreparedStatement {
        static let name = "pdfgate_document_ready_write"
        static let sql = updateFollowingIndex(.statementText).sql
        typealias Row = PostgresRow

        let query: PostgresQuery

        init(_ d: DocumentRecord) {
            query = updateFollowingIndex(d)
        }

        func makeBindings() throws -> PostgresBindings { query.binds }
        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    /// The update, and the row it left joined to its folder's path.
    private static func update(_ d: DocumentRecord) -> PostgresQuery {
        """
        WITH written AS (\(updateOf: d) RETURNING *)
        SELECT \(unescaped: writtenColumns) FROM written LEFT JOIN folders ON folders.id = written.folder_id
        """
    }

    /// The update of a row written ready, with the index following it, the rule of the SQLite
    /// catalog's `followInIndex`: a document that became ready, or whose file changed, gets a
    /// pending entry (its text is read again, its old pages go); one that was ready already and
    /// was renamed or moved has its entry's name words or scope follow. `before` is the row as
    /// the statement found it (every part of one statement sees the same snapshot), and the
    /// two index writes exclude each other, so no row is written twice.
    static func updateFollowingIndex(_ d: DocumentRecord) -> PostgresQuery {
        let nameWords = SearchTokenizer.indexedWords(d.name)
        let titleWords = SearchTokenizer.indexedWords(d.title ?? "")
        return """
            WITH before AS (SELECT state, sha256, name, title, folder_id FROM documents WHERE id = \(d.id)),
            written AS (\(updateOf: d) RETURNING *),
            entry AS (
                INSERT INTO document_index (document_id, owner, folder_id, name, title, scope, state, source, sha256,
                    extractor_version, truncated, page_rows, updated_at, words)
                SELECT \(d.id), \(d.owner), \(d.folderID), \(d.name), \(d.title), pdfgate_search_scope(\(d.owner), \(d.folderID)),
                    \(SearchIndexState.pending.rawValue), NULL, \(d.sha256), 0, false, 0, now(),
                    setweight(to_tsvector('simple', \(nameWords)), 'A') || setweight(to_tsvector('simple', \(titleWords)), 'B')
                FROM before WHERE NOT (before.state = 'ready' AND before.sha256 = \(d.sha256))
                ON CONFLICT (document_id) DO UPDATE SET \(unescaped: PostgresSearchIndex.rewriteEntry)
                RETURNING doc_seq
            ),
            gone AS (DELETE FROM document_pages WHERE doc_seq IN (SELECT doc_seq FROM entry)),
            followed AS (
                UPDATE document_index AS i SET name = \(d.name), title = \(d.title), folder_id = \(d.folderID), updated_at = now(),
                    words = CASE WHEN b.name <> \(d.name) OR b.title IS DISTINCT FROM \(d.title)
                        THEN ts_filter(i.words, '{d}') || setweight(to_tsvector('simple', \(nameWords)), 'A')
                            || setweight(to_tsvector('simple', \(titleWords)), 'B')
                        ELSE i.words END,
                    scope = CASE WHEN b.folder_id <> \(d.folderID) THEN pdfgate_search_scope(i.owner, \(d.folderID)) ELSE i.scope END
                FROM before AS b
                WHERE i.document_id = \(d.id) AND b.state = 'ready' AND b.sha256 = \(d.sha256)
                    AND (b.name <> \(d.name) OR b.title IS DISTINCT FROM \(d.title) OR b.folder_id <> \(d.folderID))
            )
            SELECT \(unescaped: writtenColumns) FROM written LEFT JOIN folders ON folders.id = written.folder_id
            """
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

    static func folderByID(_ id: String, owner: String) -> PostgresQuery {
        "SELECT \(unescaped: folderColumns) FROM folders WHERE id = \(id) AND owner = \(owner)"
    }

    static func folderByPath(_ path: String, owner: String) -> PostgresQuery {
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
            updatedAt: try next(),
            warning: try next()
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
