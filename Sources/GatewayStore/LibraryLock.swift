import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Serializes library mutations within this process (the mutex) and across processes sharing
/// the store, e.g. `pdfgate serve` and a `pdfgate mv` from a shell (flock on a lock file).
///
/// Mutations are short (renames, a transaction, an fsync), so one at a time costs little and
/// means recovery only ever has a handful of half-finished operations to look at.
final class LibraryLock: Sendable {
    private let descriptor: Mutex<Int32>

    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw FileOpsError(errno: errno, operation: "open", path: path) }
        descriptor = Mutex(fd)
    }

    deinit {
        _ = descriptor.withLock { close($0) }
    }

    func withLock<T: Sendable>(_ body: () throws -> T) throws -> T {
        try descriptor.withLock { fd in
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { throw FileOpsError(errno: errno, operation: "flock", path: "library.lock") }
            }
            defer { flock(fd, LOCK_UN) }
            return try body()
        }
    }
}
