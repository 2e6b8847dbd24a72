import Foundation
import GatewayCore
import Synchronization

/// Serializes library mutations within this process (the mutex) and across every process
/// sharing the library (a `StoreWideLock`): `pdfgate serve` and a `pdfgate mv` from a shell on
/// one machine, or every node of a cluster.
///
/// Mutations are short (renames, a transaction, an fsync), so one at a time costs little and
/// means recovery only ever has a handful of half-finished operations to look at.
final class LibraryLock: Sendable {
    private let storeWide: any StoreWideLock
    private let holder: Mutex<any StoreWideLockHolder>

    /// The lock a task holds across awaits (`holding`): that task's own mutations must not wait
    /// for it.
    @TaskLocal private static var heldByTask: ObjectIdentifier?

    init(_ storeWide: any StoreWideLock) throws {
        self.storeWide = storeWide
        holder = Mutex(try storeWide.makeHolder())
    }

    func withLock<T: Sendable>(_ body: () throws -> T) throws -> T {
        if Self.heldByTask == ObjectIdentifier(self) { return try body() }
        return try holder.withLock { holder in
            try holder.lock()
            defer { holder.unlock() }
            return try body()
        }
    }

    /// Holds the lock for all of `body`, awaits included, as fsck needs: a mutation half-done by
    /// a server would otherwise look like damage. Other processes' and other tasks' mutations
    /// wait; `body`'s own go straight through.
    ///
    /// A mutex cannot be held across an await, so this takes the store-wide lock through a
    /// holder of its own, which this process's `withLock` callers wait for like any other
    /// process's.
    func holding<T>(_ body: () async throws -> T) async throws -> T {
        let own = try storeWide.makeHolder()
        try own.lock()
        defer { own.unlock() }
        return try await Self.$heldByTask.withValue(ObjectIdentifier(self)) { try await body() }
    }
}
