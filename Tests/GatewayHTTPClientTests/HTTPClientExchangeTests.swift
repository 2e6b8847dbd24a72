import Foundation
import GatewayTestSupport
import Testing

@testable import GatewayHTTPClient

@Suite("HTTPClient exchanges against a loopback server")
struct HTTPClientExchangeTests {
    @Test func getIntoMemoryWithCaseInsensitiveHeaders() async throws {
        let seen = Recorder<(method: String, target: String, agent: String?)>(("", "", nil))
        let server = try LoopbackHTTPServer { request, response in
            seen.set((request.method, request.target, request.header("user-agent")))
            try response.respond(status: 200, headers: [("X-Request-Id", "abc123"), ("Content-Type", "text/plain")], text: "hello")
        }
        defer { server.stop() }

        let response = try await loopbackClient().execute(HTTPRequest(url: server.url("/greeting?lang=en")))

        #expect(response.status == 200)
        #expect(response.bodyText == "hello")
        #expect(response.bytesReceived == 5)
        #expect(response.header("x-request-id") == "abc123")
        #expect(response.header("X-REQUEST-ID") == "abc123")
        #expect(response.header("content-type") == "text/plain")
        #expect(response.header("Missing") == nil)
        #expect(seen.value.method == "GET")
        #expect(seen.value.target == "/greeting?lang=en")
        #expect(seen.value.agent == "pdfgate/0.1")
    }

    @Test func jsonPost() async throws {
        let seen = Recorder<(type: String?, length: String?, body: String)>((nil, nil, ""))
        let server = try LoopbackHTTPServer { request, response in
            seen.set((request.header("Content-Type"), request.header("Content-Length"), try request.readBodyText()))
            try response.respond(status: 201, headers: [("Content-Type", "application/json")], text: #"{"id":"job-1"}"#)
        }
        defer { server.stop() }
        let json = #"{"url":"https://example.org","type":"web"}"#

        let response = try await loopbackClient().execute(
            HTTPRequest(method: "POST", url: server.url("/jobs"), headers: ["Content-Type": "application/json"], body: .text(json))
        )

        #expect(response.status == 201)
        #expect(response.bodyText == #"{"id":"job-1"}"#)
        #expect(seen.value.type == "application/json")
        #expect(seen.value.length == String(json.utf8.count))
        #expect(seen.value.body == json)
    }

    @Test func putOfA50MBFileIsStreamedWithContentLength() async throws {
        let directory = TemporaryDirectory()
        let source = directory.file("upload.bin")
        let received = directory.file("received.bin")
        let size = 50 << 20
        try makeFile(source, size: size)
        let seen = Recorder<(length: String?, chunked: Bool, count: Int64)>((nil, false, 0))
        let server = try LoopbackHTTPServer { request, response in
            let count = try request.readBody(toFile: received)
            seen.set((request.header("Content-Length"), request.isChunked, count))
            try response.respond(status: 204)
        }
        defer { server.stop() }

        let started = ContinuousClock.now
        let response = try await loopbackClient().execute(HTTPRequest(method: "PUT", url: server.url("/blob"), body: .file(path: source)))
        print("PUT of 50 MiB took \(ContinuousClock.now - started)")

        #expect(response.status == 204)
        #expect(seen.value.length == String(size))
        #expect(seen.value.chunked == false)
        #expect(seen.value.count == Int64(size))
        #expect(try await sha256(received) == sha256(source))
    }

    @Test func postOfAFileSendsItsLength() async throws {
        let directory = TemporaryDirectory()
        let source = directory.file("doc.odt")
        try makeFile(source, size: 300_000)
        let seen = Recorder<(method: String, length: String?, type: String?, count: Int64)>(("", nil, nil, 0))
        let server = try LoopbackHTTPServer { request, response in
            let count = try request.discardBody()
            seen.set((request.method, request.header("Content-Length"), request.header("Content-Type"), count))
            try response.respond(status: 200)
        }
        defer { server.stop() }

        _ = try await loopbackClient().execute(HTTPRequest(method: "POST", url: server.url("/convert"), body: .file(path: source)))

        #expect(seen.value.method == "POST")
        #expect(seen.value.length == "300000")
        #expect(seen.value.type == "application/octet-stream")
        #expect(seen.value.count == 300_000)
    }

    @Test func multipartFormWithTextAndFileParts() async throws {
        let directory = TemporaryDirectory()
        let source = directory.file("report.docx")
        try makeFile(source, size: 2_000_000)
        let parts = Recorder<[ReceivedFormPart]>([])
        let server = try LoopbackHTTPServer { request, response in
            parts.set(try request.readMultipartForm())
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], text: "%PDF-1.7")
        }
        defer { server.stop() }

        let response = try await loopbackClient().execute(
            HTTPRequest(
                method: "POST",
                url: server.url("/forms/libreoffice/convert"),
                headers: ["Gotenberg-Trace": "job-42"],
                body: .multipart([
                    .text("landscape", "true"),
                    .file(
                        "files",
                        path: source,
                        contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
                    ),
                ])
            )
        )

        #expect(response.status == 200)
        let received = parts.value
        try #require(received.count == 2)
        #expect(received[0].name == "landscape")
        #expect(received[0].text == "true")
        #expect(received[0].filename == nil)
        #expect(received[1].name == "files")
        #expect(received[1].filename == "report.docx")
        #expect(received[1].contentType == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        #expect(received[1].body == Array(try Data(contentsOf: URL(fileURLWithPath: source))))
    }

    @Test func a100MBResponseIsStreamedToAFile() async throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("download.pdf")
        let size: Int64 = 100 << 20
        let server = try LoopbackHTTPServer { _, response in
            let block = [UInt8]((0..<65_536).map { UInt8(truncatingIfNeeded: $0) })
            try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: size)
            for _ in 0..<(size / 65_536) { try response.write(block) }
        }
        defer { server.stop() }
        // Memory is measured by `make bench`, not asserted here: in a parallel test run the
        // process's RSS also moves with every other test.
        let response = try await loopbackClient().execute(HTTPRequest(url: server.url("/big.pdf")), sink: .file(path: destination))

        #expect(response.status == 200)
        #expect(response.bodyFile == destination)
        #expect(response.body.isEmpty)
        #expect(response.bytesReceived == size)
        let attributes = try FileManager.default.attributesOfItem(atPath: destination)
        #expect((attributes[.size] as? NSNumber)?.int64Value == size)
    }

    @Test func memorySinkOverItsLimitIsTooLarge() async throws {
        let server = try LoopbackHTTPServer { request, response in
            // Streamed without a length, so the limit is enforced on the bytes, not on a header.
            try response.startBody(status: 200, contentLength: request.path == "/chunked" ? nil : 10_000)
            try response.write([UInt8](repeating: 65, count: 10_000))
        }
        defer { server.stop() }

        for path in ["/chunked", "/length"] {
            let error = await #expect(throws: HTTPClientError.self) {
                try await loopbackClient().execute(HTTPRequest(url: server.url(path)), sink: .memory(limit: 4_096))
            }
            #expect(error?.kind == .responseTooLarge)
            #expect(error?.code == "response_too_large")
            #expect(error?.isTransient == false)
        }
    }

    @Test func fileSinkOverTheConfiguredCapIsTooLargeAndRemoved() async throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("capped.pdf")
        let server = try LoopbackHTTPServer { _, response in
            try response.startBody(status: 200, contentLength: nil)
            for _ in 0..<10 { try response.write([UInt8](repeating: 66, count: 1_000)) }
        }
        defer { server.stop() }

        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient { $0.maxResponseFileBytes = 4_000 }
                .execute(HTTPRequest(url: server.url("/capped")), sink: .file(path: destination))
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func anUnwritableResponseFileIsALocalError() async throws {
        let server = try LoopbackHTTPServer { _, response in try response.respond(status: 200, text: "x") }
        defer { server.stop() }

        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(HTTPRequest(url: server.url("/")), sink: .file(path: "/nonexistent-dir/out.pdf"))
        }
        #expect(error?.kind == .localFile)
        #expect(error?.isTransient == false)
    }

    @Test func redirectsAreReportedNotFollowed() async throws {
        let server = try LoopbackHTTPServer { request, response in
            try response.respond(status: 302, headers: [("Location", "/next")], text: "moved")
        }
        defer { server.stop() }

        let response = try await loopbackClient().execute(HTTPRequest(url: server.url("/start")))

        #expect(response.status == 302)
        #expect(response.location == "/next")
        #expect(response.redirectURL == server.url("/next"))
    }

    @Test func followedRedirectsKeepOnlyTheFinalHeaders() async throws {
        let server = try LoopbackHTTPServer { request, response in
            if request.path == "/start" {
                try response.respond(status: 302, headers: [("Location", "/next"), ("X-Hop", "first")], text: "moved")
            } else {
                try response.respond(status: 200, headers: [("X-Hop", "final")], text: "arrived")
            }
        }
        defer { server.stop() }

        let response = try await loopbackClient { $0.followRedirects = true }.execute(HTTPRequest(url: server.url("/start")))

        #expect(response.status == 200)
        #expect(response.bodyText == "arrived")
        #expect(response.headers.values("x-hop") == ["final"])
        #expect(response.location == nil)
    }

    @Test func aChunkedUploadIsReassembledByTheServer() async throws {
        let directory = TemporaryDirectory()
        let source = directory.file("stream.bin")
        let received = directory.file("received.bin")
        try makeFile(source, size: 3_000_000)
        let seen = Recorder<(chunked: Bool, length: String?, count: Int64)>((false, nil, 0))
        let server = try LoopbackHTTPServer { request, response in
            seen.set((request.isChunked, request.header("Content-Length"), try request.readBody(toFile: received)))
            try response.respond(status: 200)
        }
        defer { server.stop() }

        // Asking for chunked framing makes curl send the file in chunks without a length.
        _ = try await loopbackClient().execute(
            HTTPRequest(method: "POST", url: server.url("/chunked"), headers: ["Transfer-Encoding": "chunked"], body: .file(path: source))
        )

        #expect(seen.value.chunked)
        #expect(seen.value.length == nil)
        #expect(seen.value.count == 3_000_000)
        #expect(try await sha256(received) == sha256(source))
    }

    @Test func anExplicitProxyReceivesTheAbsoluteURL() async throws {
        let target = Recorder("")
        let proxy = try LoopbackHTTPServer { request, response in
            target.set(request.target)
            try response.respond(status: 200, text: "via proxy")
        }
        defer { proxy.stop() }

        // The proxy answers itself; nothing ever connects to the target address.
        let client = loopbackClient { $0.proxy = .url(proxy.baseURL) }
        let response = try await client.execute(HTTPRequest(url: "http://127.0.0.1:9/page"))

        #expect(response.bodyText == "via proxy")
        #expect(target.value == "http://127.0.0.1:9/page")
    }

    /// Uppercase `HTTP_PROXY` is honoured (libcurl alone would ignore it), and `NO_PROXY`
    /// still sends the listed hosts direct.
    @Test func theUppercaseProxyVariableIsHonouredAndNoProxyBypassesIt() async throws {
        let target = Recorder("")
        let proxy = try LoopbackHTTPServer { request, response in
            target.set(request.target)
            try response.respond(status: 200, text: "via proxy")
        }
        defer { proxy.stop() }
        let origin = try LoopbackHTTPServer { _, response in try response.respond(status: 200, text: "direct") }
        defer { origin.stop() }

        let viaProxy = loopbackClient { $0.proxy = .variables(["HTTP_PROXY": proxy.baseURL]) }
        #expect(try await viaProxy.execute(HTTPRequest(url: "http://127.0.0.1:9/page")).bodyText == "via proxy")
        #expect(target.value == "http://127.0.0.1:9/page")

        let bypassing = loopbackClient { $0.proxy = .variables(["HTTP_PROXY": proxy.baseURL, "NO_PROXY": "127.0.0.1"]) }
        #expect(try await bypassing.execute(HTTPRequest(url: origin.baseURL + "/")).bodyText == "direct")
    }

    @Test(arguments: [
        (["http_proxy": "http://a:1", "HTTP_PROXY": "http://b:2"], "http://x/", "http://a:1"),
        (["HTTP_PROXY": "http://b:2"], "http://x/", "http://b:2"),
        (["HTTP_PROXY": "http://b:2"], "https://x/", ""),
        (["HTTPS_PROXY": "http://c:3", "ALL_PROXY": "http://d:4"], "https://x/", "http://c:3"),
        (["all_proxy": "http://d:4"], "http://x/", "http://d:4"),
        ([:], "http://x/", ""),
    ])
    func proxyVariablesAreChosenByScheme(_ environment: [String: String], _ url: String, _ expected: String) {
        #expect(EnvironmentProxy(for: url, environment: environment).proxy == expected)
    }

    @Test(arguments: [
        HTTPRequest(url: "ftp://127.0.0.1/file"),
        HTTPRequest(method: "GE T", url: "http://127.0.0.1:9/"),
        HTTPRequest(url: "http://127.0.0.1:9/", headers: ["X-Evil": "a\r\nInjected: yes"]),
    ])
    func malformedRequestsFailBeforeConnecting(request: HTTPRequest) async throws {
        let error = await #expect(throws: HTTPClientError.self) { try await loopbackClient().execute(request) }
        #expect(error?.kind == .invalidURL || error?.kind == .invalidRequest)
        #expect(error?.isTransient == false)
    }
}
