import Foundation

/// Runs blocking work (waitpid, pipe reads, getaddrinfo, fsync-heavy I/O) on a thread of its
/// own and awaits it. The cooperative pool must never block, and GCD's default pool is only as
/// wide as the CPU count (2 here), so neither may host a wait that can last seconds.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        BlockingThreads.shared.run { continuation.resume(returning: body()) }
    }
}

/// Threads for `runBlocking`: every call gets a thread at once (a new one when none is idle,
/// so a long wait never delays another), and a finished thread waits a minute for more work
/// before it exits. A thread per call cost an inspection a `pthread_create` each, which on
/// this VM varied enough to double a batch's wall time.
final class BlockingThreads: @unchecked Sendable {
    static let shared = BlockingThreads()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [@Sendable () -> Void] = []
    private var idle = 0
    private let idleLifetime: TimeInterval

    init(idleLifetime: TimeInterval = 60) {
        self.idleLifetime = idleLifetime
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        // Each idle thread takes one queued item; any item beyond them gets a new thread.
        let spawn = queue.count > idle
        if !spawn { condition.signal() }
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
