import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayPostgres
import GatewayStore
import Logging

extension Library {
    /// Opens the store directory at `root` with its rows in PostgreSQL: the library every node of
    /// a cluster shares. The directory must be the same shared file system on every node, with
    /// atomic `rename` and a working `fsync` (NFSv4, CephFS, EFS), unless documents are
    /// `objects` in a bucket: then each node's directory is its own (staging and cache).
    public static func shared(
        root: String,
        database: PostgresDatabase,
        objects: (any DocumentObjects)? = nil,
        logger: Logger = Logger(label: "pdfgate.library"),
        reconciling: Bool = true
    ) async throws -> Library {
        let library = try Library(
            paths: StorePaths(root: root),
            catalog: PostgresLibraryCatalog(database: database),
            searchIndex: PostgresSearchIndex(database: database),
            storeWideLock: PostgresAdvisoryLock(database: database),
            objects: objects,
            logger: logger
        )
        if reconciling { try await library.finishInterruptedWork() }
        return library
    }
}
