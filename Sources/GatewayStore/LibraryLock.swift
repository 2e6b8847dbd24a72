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
    private let path: String
    private let descriptor: Mutex<Int32>

    /// The lock a task holds across awaits (`holding`): that task's own mutations must not wait
    /// for it.
    @TaskLocal private static var heldByTask: ObjectIdentifier?

    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw FileOpsError(errno: errno, operation: "open", path: path) }
        self.path = path
        descriptor = Mutex(fd)
    }

    deinit {
        _ = descriptor.withLock { close($0) }
    }

    func withLock<T: Sendable>(_ body: () throws -> T) throws -> T {
        if Self.heldByTask == ObjectIdentifier(self) { return try body() }
        return try descriptor.withLock { fd in
            try Self.lock(fd)
            defer { flock(fd, LOCK_UN) }
            return try body()
        }
    }

    /// Holds the lock for all of `body`, awaits included, as fsck needs: a mutation half-done by
    /// a server would otherwise look like damage. Other processes' and other tasks' mutations
    /// wait; `body`'s own go straight through.
    ///
    /// A mutex cannot be held across an await, so this takes the `flock` on a descriptor of its
    /// own: flock locks belong to open file descriptions, so this process's `withLock` callers
    /// block on it like any other process's.
    func holding<T>(_ body: () async throws -> T) async throws -> T {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw FileOpsError(errno: errno, operation: "open", path: path) }
        defer { close(fd) }
        try Self.lock(fd)
        defer { flock(fd, LOCK_UN) }
        return try await Self.$heldByTask.withValue(ObjectIdentifier(self)) { try await body() }
    }

    private static func lock(_ fd: Int32) throws {
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw FileOpsError(errno: errno, operation: "flock", path: "library.lock") }
        }
    }
}
