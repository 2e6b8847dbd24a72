import GatewayLibrary
import GatewayLibraryModel
import Logging

/// The embedded store: the library's rows in SQLite beside its tree, in the same database as
/// the job store.
extension Library {
    /// The store's SQLite database, shared with the job store; nil when the catalog lives in
    /// PostgreSQL.
    public var database: GatewayDatabase? { (catalog as? SQLiteLibraryCatalog)?.database }

    /// Opens (creating if needed) the embedded store at `root` — rows in SQLite beside the tree —
    /// and finishes any operation a crash interrupted.
    ///
    /// - Parameter reconciling: false leaves interrupted operations and leftovers as they are, for
    ///   `fsck` to report; `fsck(repair: true)` or `reconcile()` deals with them later.
    public static func open(
        root: String,
        objects: (any DocumentObjects)? = nil,
        logger: Logger = Logger(label: "pdfgate.library"),
        reconciling: Bool = true
    ) async throws -> Library {
        let library = try Library(root: root, objects: objects, logger: logger)
        if reconciling { try await library.finishInterruptedWork() }
        return library
    }

    /// The embedded store at `root`, as it is: nothing reconciled.
    package convenience init(root: String, objects: (any DocumentObjects)? = nil, logger: Logger) throws {
        let paths = StorePaths(root: root)
        let database: GatewayDatabase
        do {
            try Self.makeDirectories(paths)
            database = try GatewayDatabase(path: paths.database)
        } catch {
            throw Self.openError(error, paths)
        }
        try self.init(
            paths: paths,
            catalog: SQLiteLibraryCatalog(database: database),
            searchIndex: SQLiteSearchIndex(database: database),
            storeWideLock: FileLock(path: paths.lockFile),
            objects: objects,
            logger: logger
        )
    }

    /// The store's SQLite database, for the stores that share it; throws when the rows live in
    /// PostgreSQL.
    public func embeddedDatabase() throws -> GatewayDatabase {
        guard let database else {
            throw LibraryError(.storage, "this library keeps its rows in PostgreSQL, not in \(paths.database); open it with its database URL")
        }
        return database
    }
}
