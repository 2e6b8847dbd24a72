import Foundation
import GatewayTestSupport
import GatewayURLSecurity
import Synchronization
import Testing

@testable import GatewayLocalConverters
@testable import GatewaySandbox

/// One warm Chromium serves many jobs, each in a browser context of its own: nothing one page
/// stores is visible to the next, and a browser that dies under a job is replaced.
extension LocalConverterTests {
    @Suite(.serialized) struct WarmBrowser {
        /// Every Cookie header a page request carried, and how many pages the site served. (The
        /// favicon Chromium asks for after the page ran does carry that page's own cookie.)
        final class Visits: Sendable {
            let cookies = Mutex<[String]>([])
            let pages = Atomic<Int>(0)
        }

        /// A page that prints what it finds of earlier visits, then leaves a cookie, local
        /// storage, session storage and an IndexedDB record for the next one to find.
        static let snooper = """
            <!DOCTYPE html><html><head><title>snoop</title></head><body><p id="found">pending</p><script>
            const job = new URL(location.href).searchParams.get('job');
            const found = 'cookie=[' + document.cookie + '] local=[' + localStorage.getItem('mark') + '] session=[' + sessionStorage.getItem('mark') + ']';
            document.getElementById('found').textContent = found;
            document.cookie = 'mark=' + job + '; max-age=3600; path=/';
            localStorage.setItem('mark', job);
            sessionStorage.setItem('mark', job);
            </script></body></html>
            """

        @Test func twentyJobsOnOneBrowserSeeNothingOfEachOther() async throws {
            let visits = Visits()
            let site = try LoopbackHTTPServer { request, response in
                _ = try request.discardBody()
                guard request.path.hasPrefix("/page") else { return try response.respond(status: 404, text: "") }
                if let cookie = request.header("Cookie") { visits.cookies.withLock { $0.append(cookie) } }
                visits.pages.add(1, ordering: .relaxed)
                try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: Self.snooper)
            }
            defer { site.stop() }
            let configuration = LocalConverter.Configuration(
                chromiumSlots: 1,
                urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(site.port)"]))
            )
            try await withConverter(configuration) { converter in
                for index in 0..<20 {
                    let job = JobFixture()
                    try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(site.port)/page?job=\(index)")), events: { _ in })
                    let text = try await run("pdftotext", [job.output, "-"]).stdout
                    #expect(text.contains("cookie=[] local=[null] session=[null]"), "job \(index) saw an earlier page's state: \(text)")
                }
                #expect(converter.chromium.slots.slots[0].startCount == 1, "all twenty ran on one browser")
            }
            #expect(visits.pages.load(ordering: .relaxed) == 20)
            #expect(visits.cookies.withLock { $0 }.isEmpty, "no request carried a cookie: \(visits.cookies.withLock { $0 })")
        }

        @Test func aBrowserKilledMidJobIsReplacedAndTheJobStillPrints() async throws {
            let requested = Atomic<Int>(0)
            let site = try LoopbackHTTPServer { request, response in
                _ = try request.discardBody()
                requested.add(1, ordering: .relaxed)
                // Slow enough for the browser to be killed while it waits.
                try response.respond(
                    after: .milliseconds(1_500),
                    status: 200,
                    headers: [("Content-Type", "text/html")],
                    text: "<html><body><h1>Survived the crash</h1></body></html>"
                )
            }
            defer { site.stop() }
            let configuration = LocalConverter.Configuration(
                chromiumSlots: 1,
                urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(site.port)"]))
            )
            try await withConverter(configuration) { converter in
                let browser = converter.chromium.slots.slots[0]
                let job = JobFixture()
                async let conversion: Void = converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(site.port)/")), events: { _ in })
                // Once the page is asked for, the browser is in the middle of the job.
                try await eventually("the browser asks for the page") { requested.load(ordering: .relaxed) > 0 }
                let group = try #require(browser.processGroup())
                #expect(kill(-group, SIGKILL) == 0)
                try await conversion
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Survived the crash"))
                #expect(browser.startCount == 2, "a fresh browser took the job over")

                // And the slot keeps working for the next job.
                let next = JobFixture()
                try await converter.convert(next.request(.urlToPDF, .url("http://127.0.0.1:\(site.port)/again")), events: { _ in })
                #expect(try await run("pdftotext", [next.output, "-"]).stdout.contains("Survived the crash"))
                #expect(browser.startCount == 2)
            }
        }

        @Test func aBrowserIsRestartedAfterItsJobQuota() async throws {
            let configuration = LocalConverter.Configuration(chromiumSlots: 1, maxJobsPerChromiumInstance: 2)
            try await withConverter(configuration) { converter in
                for _ in 0..<5 {
                    let job = JobFixture()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.html"))), events: { _ in })
                    #expect(try await pdfinfoPageCount(job.output) == expectedPageCount("office/sample.html#chromium"))
                }
                #expect(converter.chromium.slots.slots[0].startCount == 3, "two jobs per browser: 2 + 2 + 1")
                #expect(converter.restarts.chromium == 2, "Gotenberg's restarts_count: every start after the first")
            }
        }

        /// An uploaded page's timers run before it is printed (virtual time, fast-forwarded).
        @Test func anUploadedPagesTimersRunBeforePrinting() async throws {
            let directory = TemporaryDirectory("pdfgate-timers")
            let page = directory.file("timers.html")
            try """
            <!DOCTYPE html><html><body><p id="out">waiting</p><script>
            setTimeout(() => { document.getElementById('out').textContent = 'Timer fired after two seconds'; }, 2000);
            </script></body></html>
            """.write(toFile: page, atomically: true, encoding: .utf8)
            try await withConverter { converter in
                let job = JobFixture()
                let started = ContinuousClock.now
                try await converter.convert(job.request(.docToPDF, job.file(page)), events: { _ in })
                let text = try await run("pdftotext", [job.output, "-"]).stdout
                #expect(text.contains("Timer fired after two seconds"), "\(text)")
                #expect(ContinuousClock.now - started < .seconds(10))
            }
        }

        /// Unsealed, Chromium's sockets go in a short TMPDIR of its own: a deep base directory
        /// (its socket paths would pass 108 bytes) must not stop the browser from starting.
        @Test func anUnsealedBrowserStartsUnderADeepDirectory() async throws {
            let directory = TemporaryDirectory("pdfgate-deep")
            let deep = directory.path + "/" + String(repeating: "d", count: 60) + "/" + String(repeating: "e", count: 60)
            try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
            let configuration = LocalConverter.Configuration(chromiumSlots: 1, baseDirectory: deep, sandbox: ConverterSandbox(isolation: .none))
            try await withConverter(configuration) { converter in
                let job = JobFixture()
                try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.html"))), events: { _ in })
                #expect(try await pdfinfoPageCount(job.output) == expectedPageCount("office/sample.html#chromium"))
            }
        }

        /// A browser that stops answering (here: every process of it frozen with SIGSTOP) fails
        /// the ping before the next job and is replaced; the job prints on the fresh one.
        @Test func aBrowserThatStopsAnsweringIsReplaced() async throws {
            try await withConverter(.init(chromiumSlots: 1)) { converter in
                let browser = converter.chromium.slots.slots[0]
                let first = JobFixture()
                try await converter.convert(first.request(.docToPDF, first.file(Fixtures.office("sample.html"))), events: { _ in })
                let group = try #require(browser.processGroup())
                #expect(kill(-group, SIGSTOP) == 0)
                let job = JobFixture()
                try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.html"))), events: { _ in })
                #expect(try await pdfinfoPageCount(job.output) == expectedPageCount("office/sample.html#chromium"))
                #expect(browser.startCount == 2 && browser.processGroup() != group, "the frozen browser was replaced")
                #expect(try await membersLeft(ofGroup: group).isEmpty, "and killed, not left frozen")
            }
        }
    }
}
