import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

@Suite("HTTPClient never blocks the cooperative pool")
struct HTTPClientConcurrencyTests {
    @Test func fiftyConcurrentSlowRequestsAllSucceedWhileOtherTasksProgress() async throws {
        let server = try LoopbackHTTPServer { request, response in
            // Each answer takes a while, so blocking threads would show.
            try response.respond(after: .milliseconds(300), status: 200, text: request.path)
        }
        defer { server.stop() }
        let client = loopbackClient()
        let ticks = Recorder(0)
        let ticker = sampling(every: .milliseconds(10)) { ticks.update { $0 += 1 } }

        let started = ContinuousClock.now
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                group.addTask { try await client.execute(HTTPRequest(url: server.url("/item/\(index)"))).bodyText }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let elapsed = ContinuousClock.now - started
        let ticksDuring = ticks.value
        ticker.cancel()
        print("50 concurrent 300 ms requests took \(elapsed); ticker advanced \(ticksDuring) times")

        #expect(bodies == Set((0..<50).map { "/item/\($0)" }))
        // Serialized on a 2-thread pool they would need 50 × 0.3 s / 2 = 7.5 s.
        // Generous for a loaded CI machine, yet well below the 7.5 s of a blocked pool.
        #expect(elapsed < .seconds(7))
        // A blocked pool would leave the ticker at 0 until the end; other suites share the pool, so be lenient.
        #expect(ticksDuring >= 1)
    }
}
