import Foundation

/// Runs blocking work (waitpid, pipe reads, getaddrinfo, fsync-heavy I/O) on a thread of its
/// own and awaits it. The cooperative pool must never block, and GCD's default pool is only as
/// wide as the CPU count (2 here), so neither may host a wait that can last seconds.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        BlockingThreads.shared.run { continuation.resume(returning: body()) }
    }
}

/// Threads for `runBlocking`: a call gets a thread at once (a new one when none is idle, so a
/// long wait never delays another) up to `maxThreads`; past that, calls queue for the next
/// free thread, so a flood of blocking work cannot exhaust the process's threads. A finished
/// thread waits `idleLifetime` for more work before it exits. A thread per call cost an
/// inspection a `pthread_create` each, which on this VM varied enough to double a batch's wall
/// time. The bound is meant to sit well above what the backends' slots, the inspector pool and
/// the store's writes hold at once (one thread per running wait), so it only stops a runaway.
final class BlockingThreads: @unchecked Sendable {
    static let shared = BlockingThreads()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [@Sendable () -> Void] = []
    private var idle = 0
    private var threads = 0
    private let idleLifetime: TimeInterval
    let maxThreads: Int

    init(idleLifetime: TimeInterval = 60, maxThreads: Int = 128) {
        self.idleLifetime = idleLifetime
        self.maxThreads = maxThreads
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        // Each idle thread takes one queued item; any item beyond them gets a new thread while
        // the bound allows, else waits in the queue.
        let spawn = queue.count > idle && threads < maxThreads
        if spawn { threads += 1 } else { condition.signal() }
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in serve() }
            thread.name = "pdfgate-blocking"
            thread.start()
        }
    }

    private func serve() {
        condition.lock()
        while true {
            while queue.isEmpty {
                idle += 1
                let signalled = condition.wait(until: Date().addingTimeInterval(idleLifetime))
                idle -= 1
                if !signalled && queue.isEmpty {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let work = queue.removeFirst()
            condition.unlock()
            work()
            condition.lock()
        }
    }
}
