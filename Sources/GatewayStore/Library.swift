import Foundation
import GRDB
import GatewayCore
import Logging

/// The folder-organized PDF library of one store: SQLite rows mirrored by real files.
///
/// Every mutation follows one ordering so that a `kill -9` at any instant leaves something
/// `reconcile()` can finish or undo (see `Library+Recovery.swift`):
/// 1. a transaction records the intent on the row (`state` / `path_before` / `staged_path`),
/// 2. the file system changes with one atomic no-replace rename (or mkdir/unlink), then fsync
///    of the file and of the directories involved,
/// 3. a transaction marks the row `ready`.
///
/// Calls block on disk I/O: call them from a thread pool, not the cooperative executor.
public final class Library: Sendable {
    public let paths: StorePaths
    /// The process's one pool, shared with the job store.
    public let database: GatewayDatabase
    let lock: LibraryLock
    let logger: Logger

    /// Opens (creating if needed) the store at `root` and finishes any operation a crash interrupted.
    ///
    /// - Parameter reconciling: false leaves interrupted operations and leftovers as they are, for
    ///   `fsck` to report; `fsck(repair: true)` or `reconcile()` deals with them later.
    public init(root: String, logger: Logger = Logger(label: "pdfgate.library"), reconciling: Bool = true) throws {
        paths = StorePaths(root: root)
        self.logger = logger
        do {
            for dir in [paths.meta, paths.staging, paths.filing, paths.trash, paths.thumbnails] {
                try FileOps.makeDirectories(dir)
            }
            lock = try LibraryLock(path: paths.lockFile)
            database = try GatewayDatabase(path: paths.database)
        } catch let error as FileOpsError {
            throw error.libraryError
        } catch {
            throw LibraryError(.storage, "cannot open the library at \(paths.root): \(error)")
        }
        if reconciling { try reconcile() }
    }

    /// Runs `body` under the mutation lock, turning file-system and database failures into
    /// `LibraryError`s that say what failed.
    func mutate<T: Sendable>(_ body: () throws -> T) throws(LibraryError) -> T {
        do {
            return try lock.withLock(body)
        } catch {
            throw Self.libraryError(error)
        }
    }

    /// A read with the same error mapping.
    func read<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do {
            return try database.pool.read(body)
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

    /// Owners name top-level directories, so they are restricted to a portable alphabet.
    public static func validateOwner(_ owner: String) throws(LibraryError) {
        let allowed = owner.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        guard allowed, !owner.isEmpty, owner.utf8.count <= 64, !owner.hasPrefix(".") else {
            throw LibraryError(.invalidArgument, "owner '\(owner)' is not valid: use 1–64 letters, digits, '-', '_' or '.', not starting with '.'")
        }
    }

    func absolute(_ relative: String) -> String { paths.absolute(relative) }
}
