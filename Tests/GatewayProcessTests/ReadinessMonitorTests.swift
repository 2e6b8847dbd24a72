import Foundation
import GatewayProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a child's pipe without a thread: a wait ends when there is something to read,
/// when the other end closes, or at its deadline, and many waits at once share one thread.
@Suite(.timeLimit(.minutes(1))) struct ReadinessMonitorTests {
    @Test func aWaitEndsWhenDataArrivesAndAtItsDeadlineWhenNoneDoes() async throws {
        let (ours, theirs) = try #require(socketPair())
        defer {
            close(ours)
            close(theirs)
        }
        let started = ContinuousClock.now
        let nothing = await ReadinessMonitor.shared.readable(ours, until: .now + .milliseconds(200))
        #expect(!nothing, "nothing was written")
        #expect(ContinuousClock.now - started >= .milliseconds(190), "it waited until its deadline")

        let writer = Task {
            try await Task.sleep(for: .milliseconds(50))
            var byte: UInt8 = 42
            return write(theirs, &byte, 1)
        }
        let data = await ReadinessMonitor.shared.readable(ours, until: .now + .seconds(10))
        #expect(data)
        #expect(try await writer.value == 1)
        var byte: UInt8 = 0
        #expect(recv(ours, &byte, 1, Int32(MSG_DONTWAIT)) == 1 && byte == 42)
    }

    @Test func theOtherEndClosingEndsTheWait() async throws {
        let (ours, theirs) = try #require(socketPair())
        defer { close(ours) }
        close(theirs)
        let started = ContinuousClock.now
        #expect(await ReadinessMonitor.shared.readable(ours, until: .now + .seconds(10)))
        #expect(ContinuousClock.now - started < .seconds(5), "the end of file, not the deadline")
    }

    @Test func twoHundredWaitsAtOnceAddNoThreads() async throws {
        let pairs = (0..<200).compactMap { _ in socketPair() }
        defer {
            for pair in pairs {
                close(pair.ours)
                close(pair.theirs)
            }
        }
        try #require(pairs.count == 200)
        try await startTheMonitor()
        let baseline = threadCount()
        let results = await withTaskGroup(of: Bool.self) { group in
            for pair in pairs { group.addTask { await ReadinessMonitor.shared.readable(pair.ours, until: .now + .seconds(20)) } }
            // Every wait is parked before anything is written: the count while all 200 wait.
            try? await Task.sleep(for: .milliseconds(300))
            // Other suites start threads meanwhile; a thread per wait would add 200.
            let waiting = threadCount()
            #expect(waiting < baseline + 100, "threads: \(baseline) before, \(waiting) with 200 waits")
            #expect(threads(named: "pdfgate-pipes") == 1, "one monitor thread for all the waits")
            for pair in pairs {
                var byte: UInt8 = 1
                _ = write(pair.theirs, &byte, 1)
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200 && results.allSatisfy { $0 }, "every wait saw its byte")
    }
}

/// The monitors' threads carry names `top -H` and `/proc` show: Linux keeps 15 bytes of a name,
/// and only one the thread gives itself.
@Test func theMonitorsThreadsAreNamed() async throws {
    let group = try ProcessGroup.start(shell("exit 0"))
    _ = await group.killAndReap()
    try await startTheMonitor()
    #expect(threads(named: "pdfgate-exits") == 1)
    #expect(threads(named: "pdfgate-pipes") == 1)
}

/// Returns once the monitor's thread runs: a wait on a socket that is already readable ends only
/// when that thread has polled it. (A short wait proves nothing: one whose deadline has passed
/// by the time it begins, as on a loaded machine, ends at once and starts no thread.)
private func startTheMonitor() async throws {
    let (ours, theirs) = try #require(socketPair())
    defer {
        close(ours)
        close(theirs)
    }
    var byte: UInt8 = 1
    try #require(write(theirs, &byte, 1) == 1)
    try #require(await ReadinessMonitor.shared.readable(ours, until: .now + .seconds(20)), "the monitor saw the byte")
}

/// This process's threads, from `/proc/self/task`.
private func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// How many of this process's threads are called `name`.
private func threads(named name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) == name
    }.count
}
