import Foundation
import Synchronization
import Testing

@testable import GatewayCore

/// The threads `runBlocking` runs on: bounded, every call served, the bound never passed.
@Suite("Blocking threads")
struct BlockingThreadsTests {
    @Test func callsPastTheBoundQueueAndAllRun() async throws {
        let threads = BlockingThreads(idleLifetime: 1, maxThreads: 3)
        let running = Mutex((now: 0, most: 0, done: 0))
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            for _ in 0..<12 {
                threads.run {
                    running.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                    let last = running.withLock {
                        $0.now -= 1
                        $0.done += 1
                        return $0.done == 12
                    }
                    if last { finished.resume() }
                }
            }
        }
        let seen = running.withLock { $0 }
        #expect(seen.done == 12, "every call ran")
        #expect(seen.most == 3, "at most the bound at once, and the bound reached: \(seen.most)")
    }
}
