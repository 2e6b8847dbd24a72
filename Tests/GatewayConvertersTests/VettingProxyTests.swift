import Foundation
import GatewayJobModel
import GatewayTestSupport
import GatewayURLSecurity
import NIOHTTP1
import Synchronization
import Testing

@testable import GatewayLocalConverters
@testable import GatewaySandbox

/// Every request Chromium makes for a URL job goes through the `VettingProxy`: redirects and
/// subresources are checked one by one, not blocked wholesale. Names resolve from a fixed table
/// (all to 127.0.0.1), so nothing here leaves loopback or asks DNS.
extension LocalConverterTests {
    @Suite(.serialized) struct VettingProxyThroughChromium {
        /// A loopback site whose pages are given by path; every request's Host is recorded.
        final class Site: Sendable {
            final class Log: Sendable {
                let entries = Mutex<[String]>([])
            }
            let server: LoopbackHTTPServer
            let log = Log()
            var port: Int { server.port }
            var requests: [String] { log.entries.withLock { $0 } }

            init(_ pages: @escaping @Sendable (String) -> (status: Int, headers: [(String, String)], body: String)) throws {
                let log = self.log
                server = try LoopbackHTTPServer { request, response in
                    log.entries.withLock { $0.append("\(request.header("Host") ?? "?") \(request.path)") }
                    _ = try request.discardBody()
                    let page = pages(request.path)
                    try response.respond(status: page.status, headers: page.headers + [("Content-Type", "text/html")], text: page.body)
                }
            }
        }

        /// A converter whose guard allows `allowed` (host:port) and resolves names by `names`.
        static func configuration(allowing allowed: [String], names: [String: IPAddress] = [:]) -> LocalConverter.Configuration {
            LocalConverter.Configuration(
                urlGuard: URLGuard(check: URLCheck(allowList: Set(allowed))) { host in names[host].map { [$0] } ?? [] }
            )
        }

        @Test func aRedirectToAnotherAllowedHostIsFollowed() async throws {
            let target = try Site { _ in (200, [], "<html><body><h1>Arrived on B</h1></body></html>") }
            let start = try Site { _ in (302, [("Location", "http://site-b.test:\(target.port)/landing")], "") }
            let configuration = Self.configuration(
                allowing: ["127.0.0.1:\(start.port)", "site-b.test:\(target.port)"],
                names: ["site-b.test": .v4(0x7F00_0001)]
            )
            try await withConverter(configuration) { converter in
                let job = JobFixture()
                try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(start.port)/")), events: { _ in })
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Arrived on B"))
            }
            #expect(target.requests.contains("site-b.test:\(target.port) /landing"), "B was asked by name, at the address checked")
        }

        @Test func aRedirectToAForbiddenAddressIsRefusedNamingTheRule() async throws {
            let start = try Site { _ in (302, [("Location", "http://169.254.169.254/latest/meta-data/")], "") }
            try await withConverter(Self.configuration(allowing: ["127.0.0.1:\(start.port)"])) { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(start.port)/")), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .rejected && failure.code == "url_forbidden", "\(failure)")
                #expect(failure.message.contains("169.254.169.254") && failure.message.contains("link-local"), "\(failure.message)")
                #expect(!FileManager.default.fileExists(atPath: job.output))
            }
        }

        @Test func aRedirectToAPrivateNameIsRefusedAfterResolving() async throws {
            let start = try Site { _ in (301, [("Location", "http://intranet.example.com/")], "") }
            let configuration = Self.configuration(allowing: ["127.0.0.1:\(start.port)"], names: ["intranet.example.com": .v4(0x0A00_0005)])
            try await withConverter(configuration) { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(start.port)/")), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.code == "url_forbidden", "\(failure)")
                #expect(failure.message.contains("10.0.0.5") && failure.message.contains("private"), "\(failure.message)")
            }
        }

        @Test func aPageWhoseLoadNeverEndsIsPrintedBeforeTheDeadline() async throws {
            let hanging = try LoopbackHTTPServer { request, response in
                if request.path == "/page.html" {
                    _ = try request.discardBody()
                    try response.respond(
                        status: 200,
                        headers: [("Content-Type", "text/html")],
                        text: "<html><body><h1>Printed anyway</h1><img src=\"/never.png\"></body></html>"
                    )
                } else {
                    response.hang()  // the image never arrives, so the load event never fires
                }
            }
            defer { hanging.stop() }
            try await withConverter(Self.configuration(allowing: ["127.0.0.1:\(hanging.port)"])) { converter in
                let job = JobFixture()
                try await converter.convert(
                    job.request(.urlToPDF, .url("http://127.0.0.1:\(hanging.port)/page.html"), timeout: .seconds(8)),
                    events: { _ in }
                )
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Printed anyway"))
            }
        }

        @Test func subresourcesAreCheckedOneByOne() async throws {
            let assets = try Site { _ in (200, [], "<html><body><p>FRAME FROM B</p></body></html>") }
            let page = try Site { _ in
                (
                    200, [],
                    """
                    <html><body><h1>Main page</h1>
                    <iframe src="http://assets.test:\(assets.port)/frame.html"></iframe>
                    <iframe src="http://10.9.8.7/secret"></iframe>
                    </body></html>
                    """
                )
            }
            let configuration = Self.configuration(
                allowing: ["127.0.0.1:\(page.port)", "assets.test:\(assets.port)"],
                names: ["assets.test": .v4(0x7F00_0001)]
            )
            try await withConverter(configuration) { converter in
                let job = JobFixture()
                try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(page.port)/")), events: { _ in })
                let text = try await run("pdftotext", [job.output, "-"]).stdout
                #expect(text.contains("Main page") && text.contains("FRAME FROM B"), "the allowed frame loaded: \(text)")
            }
        }
    }
}

/// `ProxyRequest` judges the head NIOHTTP1 decoded (what no decoder can read is answered 400:
/// see `VettingProxyConnectionTests`).
@Suite("Proxy request parsing")
struct ProxyRequestTests {
    @Test func absoluteFormIsForwardedInOriginFormWithConnectionClose() throws {
        let headers: HTTPHeaders = ["Host": "site.test:8080", "Proxy-Connection": "keep-alive", "Connection": "keep-alive", "Accept": "*/*"]
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://site.test:8080/a/b?q=1#frag", headers: headers)
        let request = try #require(ProxyRequest(head))
        #expect(!request.isConnect && request.url == "http://site.test:8080/a/b?q=1#frag")
        let forwarded = try #require(request.forwardedHead)
        #expect(forwarded.method == .GET && forwarded.uri == "/a/b?q=1" && forwarded.version == .http1_1)
        #expect(forwarded.headers.map { "\($0.name): \($0.value)" } == ["Host: site.test:8080", "Accept: */*", "Connection: close"])
        #expect(ProxyRequest(HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://site.test"))?.forwardedHead?.uri == "/")
    }

    @Test func connectIsCheckedAsHTTPSOnItsPort() throws {
        let head = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "example.org:443", headers: ["Host": "example.org:443"])
        let request = try #require(ProxyRequest(head))
        #expect(request.isConnect && request.url == "https://example.org:443/")
    }

    @Test func navigationsAreToldFromSubresourcesByChromiumsHeaders() throws {
        let page = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://x.test/", headers: ["Sec-Fetch-Mode": "navigate"])
        let image = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://x.test/a.png", headers: ["Sec-Fetch-Mode": "no-cors"])
        #expect(try #require(ProxyRequest(page)).isNavigation)
        #expect(try !#require(ProxyRequest(image)).isNavigation)
    }

    @Test func anythingElseIsNotAProxyRequest() {
        for (method, uri) in [(HTTPMethod.GET, "/local"), (.GET, "https://x.test/"), (.CONNECT, "x.test"), (.CONNECT, "x.test:443/path")] {
            #expect(ProxyRequest(HTTPRequestHead(version: .http1_1, method: method, uri: uri)) == nil, "\(method) \(uri)")
        }
    }
}

/// The proxy alone, driven by curl: what it forwards, refuses and notes.
@Suite("Vetting proxy")
struct VettingProxyTests {
    final class Lookups: Sendable {
        let names = Mutex<[String]>([])
    }

    @Test func forwardsThePageRefusesTheRestAndNeverResolvesChromiumsServices() async throws {
        let site = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(
                status: 200,
                headers: [("Content-Type", "text/plain")],
                text: "page at \(request.path) for \(request.header("Host") ?? "?")"
            )
        }
        defer { site.stop() }
        let lookups = Lookups()
        let urlGuard = URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(site.port)", "other.test:\(site.port)"])) { host in
            lookups.names.withLock { $0.append(host) }
            return host == "other.test" ? [.v4(0x7F00_0001)] : [.v4(0x0A00_0001)]
        }
        let proxy = try VettingProxy(page: "http://127.0.0.1:\(site.port)/", urlGuard: urlGuard)
        let listener = try ProxyListener(.loopback)
        listener.route(to: proxy)
        defer {
            listener.stop()
            proxy.stop()
        }
        func fetch(_ url: String) async throws -> (status: Int32, body: String) {
            let result = try await run("curl", ["-s", "--max-time", "10", "-x", listener.proxyServer, url])
            return (result.status, result.stdout)
        }

        // Before the page is asked for, requests are Chromium's own: not answered, not noted.
        #expect(try await fetch("http://other.test:\(site.port)/early").status == 52, "empty reply")
        #expect(try await fetch("http://127.0.0.1:\(site.port)/index.html").body == "page at /index.html for 127.0.0.1:\(site.port)")
        #expect(try await fetch("http://other.test:\(site.port)/later").body == "page at /later for other.test:\(site.port)")
        #expect(try await fetch("http://intranet.example.com/").status == 52, "a name resolving to 10.0.0.1 gets no answer")
        let tunnel = try await run(
            "curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_connect}", "--max-time", "10", "-x", listener.proxyServer, "https://169.254.169.254/"]
        )
        #expect(tunnel.stdout == "403", "CONNECT to a forbidden address: \(tunnel.stdout)")
        #expect(try await fetch("http://update.googleapis.com/service/update2/json").status == 52)

        let refusals = proxy.notes.compactMap { note -> String? in
            if case .refused(let failure, _) = note { return failure.message }
            return nil
        }
        #expect(refusals.count == 2, "\(refusals)")
        #expect(refusals.first?.contains("10.0.0.1") == true && refusals.last?.contains("link-local") == true, "\(refusals)")
        #expect(!lookups.names.withLock { $0 }.contains("update.googleapis.com"), "Chromium's services are refused before any lookup")
    }
}
