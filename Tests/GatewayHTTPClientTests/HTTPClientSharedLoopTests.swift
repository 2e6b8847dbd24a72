import Foundation
import GatewayTestSupport
import Testing

@testable import GatewayHTTPClient

#if canImport(Glibc)
import Glibc
#endif

/// One test at a time: each counts the process's transfer-loop threads.
@Suite("HTTPClient drives every transfer from one loop", .serialized)
struct HTTPClientSharedLoopTests {
    /// A thousand exchanges in flight at once must not cost a thousand threads: the process's
    /// thread count (`/proc/self/task`) stays within a few of what it was before. Suites running
    /// beside this one start threads of their own (a test server's, dispatch's), so the count is
    /// taken in a test process that runs this test and nothing else.
    @Test(.timeLimit(.minutes(2)))
    func aThousandConcurrentSlowRequestsShareAHandfulOfThreads() async throws {
        guard ProcessInfo.processInfo.environment[Self.aloneVariable] != nil else {
            let alone = try await runAlone(#function)
            let measured = alone.stdout.split(separator: "\n").first { $0.contains("concurrent 1.5 s requests took") }
            print(measured ?? "the test process alone printed no measurement")
            #expect(alone.status == 0 && measured != nil, "alone, it failed:\n\(alone.stdout.suffix(4000))\n\(alone.stderr.suffix(2000))")
            return
        }
        let count = 1_000
        // Each exchange holds a descriptor on both ends of the loopback connection.
        try raiseOpenFileLimit(toAtLeast: 4 * count + 256)
        let server = try await SlowHTTPServer(delay: .milliseconds(1_500))
        let client = loopbackClient()
        // Warms the loop up, so the baseline already holds whatever threads a first request starts.
        let warm = try await client.execute(HTTPRequest(url: server.url("/warm-up")))
        #expect(warm.bodyText == "/warm-up")

        let baseline = threadCount()
        let peak = Recorder(baseline)
        let atFullLoad = Recorder(0)
        let sampler = sampling(every: .milliseconds(5)) {
            let now = threadCount()
            peak.update { $0 = max($0, now) }
            if atFullLoad.value == 0, server.requestsReceived >= count + 1 { atFullLoad.set(now) }
        }

        let started = ContinuousClock.now
        let bodies = try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
            for index in 0..<count {
                group.addTask { (index, try await client.execute(HTTPRequest(url: server.url("/item/\(index)")), timeout: .seconds(60))) }
            }
            return try await group.reduce(into: [Int: HTTPResponse]()) { $0[$1.0] = $1.1 }
        }
        let elapsed = ContinuousClock.now - started
        sampler.cancel()
        _ = await sampler.value
        let after = threadCount()
        let peakThreads = peak.value
        let fullLoadThreads = atFullLoad.value
        await server.stop()
        print(
            "\(count) concurrent 1.5 s requests took \(elapsed), \(server.mostHeldAtOnce) held at once; threads: baseline \(baseline), "
                + "peak \(peakThreads), with all in flight \(fullLoadThreads), after \(after)"
        )

        #expect(bodies.count == count)
        #expect(bodies.allSatisfy { index, response in response.status == 200 && response.bodyText == "/item/\(index)" })
        #expect(server.requestsReceived == count + 1)
        #expect(fullLoadThreads > 0, "the sampler saw every request arrive at the server")
        #expect(peakThreads - baseline <= 8, "a thread per transfer would add about \(count)")
        // Serialized, or queued behind a small pool, at most that many would be held at once.
        #expect(server.mostHeldAtOnce >= count / 2, "in flight together: \(server.mostHeldAtOnce) of \(count)")
    }

    @Test func unpinnedExchangesReuseAConnectionAndPinnedOnesNever() async throws {
        let server = try await SlowHTTPServer(delay: .zero)
        let client = loopbackClient()
        for index in 0..<3 {
            let response = try await client.execute(HTTPRequest(url: server.url("/plain/\(index)")))
            #expect(response.bodyText == "/plain/\(index)")
        }
        let afterPlain = server.connectionsAccepted
        // The same name pinned to the same address each time: reuse would be harmless here, yet a
        // pinned exchange must neither take a cached connection nor leave one behind.
        for index in 0..<3 {
            let request = HTTPRequest(
                url: "http://pinned.invalid:\(server.port)/pinned/\(index)",
                resolve: ["pinned.invalid:\(server.port):127.0.0.1"]
            )
            let response = try await client.execute(request)
            #expect(response.bodyText == "/pinned/\(index)")
        }
        let afterPinned = server.connectionsAccepted
        let plainAgain = try await client.execute(HTTPRequest(url: server.url("/plain/again")))
        await server.stop()

        #expect(afterPlain == 1, "keep-alive: the loop's connection cache serves all three")
        #expect(afterPinned == afterPlain + 3)
        #expect(plainAgain.bodyText == "/plain/again")
        #expect(server.connectionsAccepted == afterPinned, "the unpinned connection is still cached")
    }

    @Test func shuttingALoopDownFailsItsTransfersAndEndsItsThread() async throws {
        let arrived = Recorder(false)
        let server = try LoopbackHTTPServer { _, response in
            arrived.set(true)
            response.hang()
        }
        defer { server.stop() }
        let loop = TransferLoop()
        let client = HTTPClient(configuration: HTTPClientConfiguration(proxy: .direct), loop: loop)
        let loopThreadsBefore = loopThreadCount()

        let hanging = Task { try await client.execute(HTTPRequest(url: server.url("/hang"))) }
        try await eventually("the request reaches the server", within: .seconds(5)) { arrived.value }
        #expect(loopThreadCount() == loopThreadsBefore + 1)

        await loop.shutdown()
        let inFlight = await #expect(throws: HTTPClientError.self) { try await hanging.value }
        let later = await #expect(throws: HTTPClientError.self) { try await client.execute(HTTPRequest(url: server.url("/later"))) }
        await loop.shutdown()

        #expect(inFlight?.message.contains("shut down") == true)
        #expect(later?.message.contains("shut down") == true)
        // shutdown() returns as the thread ends; the kernel may list it a moment longer.
        try await eventually("the loop's thread leaves the kernel's list", within: .seconds(2)) { loopThreadCount() <= loopThreadsBefore }
        #expect(loopThreadCount() == loopThreadsBefore)
    }
}

extension HTTPClientSharedLoopTests {
    /// Set in the test process that `runAlone` starts.
    static let aloneVariable = "PDFGATE_TEST_RUN_ALONE"

    /// Runs the test `function` of this suite in a test process of its own (this bundle again,
    /// filtered to it) and returns what it printed.
    func runAlone(_ function: String) async throws -> ProcessResult {
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let name = function.prefix { $0 != "(" }
        var environment = ProcessInfo.processInfo.environment
        environment[Self.aloneVariable] = "1"
        let filter = "HTTPClientSharedLoopTests/\(name)\\("
        return try await run(bundle, ["--testing-library", "swift-testing", "--filter", filter], environment: environment)
    }
}

/// Threads of this process, as the kernel lists them.
private func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// Threads of this process named as the transfer loop names its thread.
private func loopThreadCount() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.count { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("pdfgate-http") == true
    }
}

/// Lifts the soft limit on open descriptors towards the hard limit when it is below `needed`.
private func raiseOpenFileLimit(toAtLeast needed: Int) throws {
    let resource = Int32(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EINVAL) }
    guard limit.rlim_cur < rlim_t(needed) else { return }
    limit.rlim_cur = limit.rlim_max == rlim_t.max ? rlim_t(needed) : min(limit.rlim_max, rlim_t(needed))
    guard setrlimit(resource, &limit) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EINVAL) }
    try #require(limit.rlim_cur >= rlim_t(needed), "the hard limit on open files (\(limit.rlim_max)) is too low for this test")
}
