import Foundation
import GatewayCore
import GatewayLibraryModel
import Logging
import Synchronization

/// The folder-organized PDF library of one store: rows (`LibraryCatalog`) mirrored by real files.
///
/// Every mutation follows one ordering so that a `kill -9` at any instant leaves something
/// `reconcile()` can finish or undo (see `Library+Recovery.swift`):
/// 1. a transaction records the intent on the row (`state` / `path_before` / `staged_path`),
/// 2. the file system changes with one atomic no-replace rename (or mkdir/unlink), then fsync
///    of the file and of the directories involved,
/// 3. a transaction marks the row `ready`.
///
/// Mutations run under `LibraryLock`, one at a time across every process sharing the store,
/// each to its end even when the task that asked is cancelled (`shielded`): a client hanging up
/// must not leave an operation for recovery. Their renames and fsyncs run on the task's own
/// thread; one mutation at a time means at most one cooperative thread is ever in an fsync.
public final class Library: Sendable {
    public let paths: StorePaths
    /// The rows: in the store's SQLite file (GatewayStore), or in a PostgreSQL database several nodes share.
    package let catalog: any LibraryCatalog
    /// The documents' full-text index, in the rows' database.
    package let searchIndex: any SearchIndex
    /// Where documents' bytes are when not in the tree: objects in a bucket, the tree then
    /// holding nothing but the catalog's view (renames and folders are rows only). Nil keeps
    /// every document as a file at its path under `paths.root`.
    package let objects: (any DocumentObjects)?
    /// Told each time a document's text may wait to be read (filed, replaced): the indexer
    /// sleeps on it. Keeps only the newest signal; one wakes the indexer for every entry pending.
    let textWaiting = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// When the last document was filed or replaced: the indexer waits for a quiet moment.
    let lastFiled = Mutex<ContinuousClock.Instant>(.now)
    let lock: LibraryLock
    let logger: Logger

    /// Opens the tree at `paths` with its rows in `catalog`, mutations serialized by
    /// `storeWideLock` across every process sharing them. Nothing is reconciled yet:
    /// `finishInterruptedWork()` does that.
    package init(
        paths: StorePaths,
        catalog: any LibraryCatalog,
        searchIndex: any SearchIndex,
        storeWideLock: any StoreWideLock,
        objects: (any DocumentObjects)? = nil,
        logger: Logger = Logger(label: "pdfgate.library")
    ) throws {
        self.paths = paths
        self.catalog = catalog
        self.searchIndex = searchIndex
        self.objects = objects
        self.logger = logger
        do {
            try Self.makeDirectories(paths)
            lock = try LibraryLock(storeWideLock)
        } catch {
            throw Self.openError(error, paths)
        }
    }

    /// Finishes or undoes what a crash interrupted and drops results nobody came for: what
    /// opening a library does unless told to leave things for `fsck` to report.
    package func finishInterruptedWork() async throws {
        _ = try await reconcile()
        // An hour is long past any wait for a job's answer.
        sweepResults(changedBefore: Date().addingTimeInterval(-3600))
    }

    package static func makeDirectories(_ paths: StorePaths) throws {
        for dir in [paths.meta, paths.staging, paths.filing, paths.trash, paths.thumbnails] {
            try FileOps.makeDirectories(dir)
        }
    }

    package static func openError(_ error: any Error, _ paths: StorePaths) -> LibraryError {
        if let error = error as? FileOpsError { return error.libraryError }
        return LibraryError(.storage, "cannot open the library at \(paths.root): \(error)")
    }

    /// Throws when the database holding the rows does not answer (readiness).
    public func ping() async throws { try await catalog.ping() }

    /// Runs `body` under the mutation lock, to its end whatever happens to the asking task,
    /// turning file-system and database failures into `LibraryError`s that say what failed.
    func mutate<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(LibraryError) -> T {
        do {
            let lock = lock
            return try await shielded { try await lock.withLock(body) }
        } catch {
            throw Self.libraryError(error)
        }
    }

    /// A read of the catalog with the same error mapping.
    func read<T>(_ body: (any LibraryCatalog) async throws -> T) async throws(LibraryError) -> T {
        do {
            return try await body(catalog)
        } catch {
            throw Self.libraryError(error)
        }
    }

    static func libraryError(_ error: any Error) -> LibraryError {
        switch error {
        case let error as LibraryError: return error
        case let error as FileOpsError: return error.libraryError
        default: return LibraryError(.storage, "the library's database failed: \(error)")
        }
    }

    func absolute(_ relative: String) -> String { paths.absolute(relative) }

    /// Whether documents are files in the folder tree (not objects in a bucket): only then do
    /// renames, moves and folders have a file-system side.
    var keepsTree: Bool { objects == nil }
}

extension Library: DocumentLibrary {
    public func thumbnailDirectory(of id: UUID) -> String { paths.thumbnails + "/" + id.lowercased }
    public var metaDirectory: String { paths.meta }
}
