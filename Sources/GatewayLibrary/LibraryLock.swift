import Foundation
import GatewayCore
import GatewayLibraryModel

/// Serializes library mutations within this process (an `AsyncLock`: waiting tasks are
/// suspended, not their threads) and across every process sharing the library (a
/// `StoreWideLock`): `pdfgate serve` and a `pdfgate mv` from a shell on one machine, or every
/// node of a cluster.
///
/// Mutations are short (renames, a transaction, an fsync), so one at a time costs little and
/// means recovery only ever has a handful of half-finished operations to look at.
final class LibraryLock: Sendable {
    private let turn = AsyncLock()
    /// This process's hold on the store-wide lock, taken by whichever task has the turn.
    private let holder: any StoreWideLockHolder

    /// Set inside a task that holds the lock (fsck across its awaits, a mutation that calls
    /// another): that task's own mutations go straight through instead of waiting for it.
    @TaskLocal private static var heldByTask: ObjectIdentifier?

    init(_ storeWide: any StoreWideLock) throws {
        holder = try storeWide.makeHolder()
    }

    /// Runs `body` holding the lock: other tasks' and other processes' mutations wait, `body`'s
    /// own go through.
    func withLock<T>(_ body: () async throws -> T) async throws -> T {
        if Self.heldByTask == ObjectIdentifier(self) { return try await body() }
        await turn.lock()
        defer { turn.unlock() }
        try await holder.lock()
        do {
            let result = try await Self.$heldByTask.withValue(ObjectIdentifier(self)) { try await body() }
            await holder.unlock()
            return result
        } catch {
            await holder.unlock()
            throw error
        }
    }
}
