import Foundation

/// Runs blocking work (waitpid, pipe reads, getaddrinfo, fsync-heavy I/O) on a thread of its
/// own and awaits it. The cooperative pool must never block, and GCD's default pool is only as
/// wide as the CPU count (2 here), so neither may host a wait that can last seconds.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
