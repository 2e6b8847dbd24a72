import Foundation
import GatewayTestSupport
import Testing

/// The test browser itself: the web page's tests share one Chromium, so each browser must start
/// as a new profile would, whether it gets the shared Chromium or one of its own.
extension WebPageTests {
    @Test("a browser sees nothing another one stored, whether open beside it or opened after it")
    func browsersAreIsolated() async throws {
        let site = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<!doctype html><p>x".utf8))
        }
        defer { site.stop() }
        let stored = "localStorage.getItem('mark') + '|' + document.cookie"

        let first = try await HeadlessBrowser()
        try await first.open(site.url("/"))
        try await first.evaluate("localStorage.setItem('mark', 'first'); document.cookie = 'c=first'")
        #expect(try await first.evaluate(stored) as? String == "first|c=first")

        // Open beside the first: a Chromium of its own.
        let beside = try await HeadlessBrowser()
        try await beside.open(site.url("/"))
        #expect(try await beside.evaluate(stored) as? String == "null|")
        beside.stop()
        first.stop()

        // After both: the shared Chromium again, in a new browser context.
        let after = try await HeadlessBrowser()
        defer { after.stop() }
        try await after.open(site.url("/"))
        #expect(try await after.evaluate(stored) as? String == "null|")
    }
}
