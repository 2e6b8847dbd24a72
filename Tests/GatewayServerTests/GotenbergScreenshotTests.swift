import Foundation
import GatewayJobModel
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer

/// Gotenberg's `/forms/chromium/screenshot/{url,html,markdown}`: the page as an image from our
/// sandboxed Chromium, a `SCREENSHOT` job of the engine that leaves nothing behind.
@Suite("Gotenberg's screenshots")
struct GotenbergScreenshotTests {
    /// A PNG's width and height, from its IHDR chunk.
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 24, ScreenshotOptions.Format.png.matches(bytes) else { return nil }
        let number = { (at: Int) in bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// The colour of one pixel of a PNG, as ImageMagick reads it (`srgb(255,0,0)`).
    static func pixel(_ bytes: [UInt8], x: Int, y: Int, in directory: TemporaryDirectory) async throws -> String {
        let path = directory.file(UUID().uuidString + ".png")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try await run("/usr/bin/convert", [path, "-format", "%[pixel:p{\(x),\(y)}]", "info:"]).stdout
    }

    @Test("an uploaded page becomes a PNG 800 px wide, named as asked, run as a SCREENSHOT job, and nothing is kept")
    func htmlToPNG() async throws {
        let gateway = try await InProcessGateway()
        let files = TemporaryDirectory("gotenberg-screenshots")
        let index = files.file("index.html")
        // A 300 × 200 red box below a 400 px spacer: a selector's clip must land on it, offset and all.
        try Data(
            #"<html><body style="margin:0"><div style="height:400px"></div><div id="target" style="width:300px;height:200px;background:#ff0000"></div><p>Below</p></body></html>"#
                .utf8
        ).write(to: URL(fileURLWithPath: index))
        let results = gateway.directory.path + "/store/.pdfgate/results"
        try await gateway.run(converting: true) { client in
            let shot = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index)],
                headers: [.gotenbergOutputFilename: "foo", .gotenbergTrace: "trace-shot"]
            )
            #expect(shot.status == .ok, "\(String(buffer: shot.body))")
            #expect(shot.headers[.contentType] == "image/png")
            #expect(
                shot.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"foo.png\"") == true,
                "\(String(describing: shot.headers[.contentDisposition]))"
            )
            #expect(shot.headers[.gotenbergTrace] == "trace-shot")
            let size = Self.pngSize(Array(shot.body.readableBytesView))
            // Gotenberg's 800 px viewport, and (capturing beyond it, as Gotenberg does) the whole
            // page below: 400 + 200 px of boxes and a paragraph.
            #expect(size?.width == 800 && (size?.height ?? 0) > 600, "\(String(describing: size))")

            let job = try #require(shot.headers[.pdfgateJobID])
            let listed = try await client.execute(uri: "/v1/jobs/\(job)", method: .get).json
            #expect(listed["type"] as? String == "SCREENSHOT" && listed["status"] as? String == "SUCCEEDED", "\(listed)")
            #expect(listed["document_id"] == nil && listed["download_url"] == nil, "a screenshot is not filed: \(listed)")
            let kept = (try? FileManager.default.contentsOfDirectory(atPath: results)) ?? []
            #expect(kept.isEmpty, "the answer carried the image; nothing stays: \(kept)")

            let clipped = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("selector", "#target")]
            )
            let clippedBytes = Array(clipped.body.readableBytesView)
            #expect(Self.pngSize(clippedBytes).map { $0 == (300, 200) } == true, "\(String(describing: Self.pngSize(clippedBytes)))")
            let centre = try await Self.pixel(clippedBytes, x: 150, y: 100, in: files)
            #expect(centre.contains("255,0,0") || centre.contains("red"), "the clip is on the red box: \(centre)")

            let viewport = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("width", "1024"), .text("height", "300"), .text("clip", "true")]
            )
            let viewportSize = Self.pngSize(Array(viewport.body.readableBytesView))
            #expect(viewportSize.map { $0 == (1024, 300) } == true, "\(String(describing: viewportSize))")

            let jpeg = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("format", "jpeg"), .text("quality", "50")]
            )
            #expect(jpeg.headers[.contentType] == "image/jpeg" && ScreenshotOptions.Format.jpeg.matches(Array(jpeg.body.readableBytesView)))
            #expect(jpeg.headers[.contentDisposition]?.contains(".jpeg\"") == true)
            let webp = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("format", "webp")]
            )
            #expect(webp.headers[.contentType] == "image/webp" && ScreenshotOptions.Format.webp.matches(Array(webp.body.readableBytesView)))
        }
    }

    @Test("a Markdown page and a URL under the allow-list are captured too")
    func markdownAndURL() async throws {
        let server = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<html><body><h1>Served page</h1></body></html>")
        }
        defer { server.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(server.port)"] }
        let files = TemporaryDirectory("gotenberg-screenshots")
        let template = files.file("index.html")
        try Data(#"<html><body>{{ toHTML "notes.md" }}</body></html>"#.utf8).write(to: URL(fileURLWithPath: template))
        let notes = files.file("notes.md")
        try Data("# Notes\n\nSome **bold** text.\n".utf8).write(to: URL(fileURLWithPath: notes))
        try await gateway.run(converting: true) { client in
            let markdown = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/markdown",
                [.file("files", path: template), .file("files", path: notes), .text("width", "640"), .text("height", "480")]
            )
            #expect(markdown.status == .ok, "\(String(buffer: markdown.body))")
            #expect(Self.pngSize(Array(markdown.body.readableBytesView)).map { $0 == (640, 480) } == true)

            let url = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/url",
                [.text("url", server.baseURL + "/page"), .text("format", "jpeg")]
            )
            #expect(url.status == .ok, "\(String(buffer: url.body))")
            #expect(url.headers[.contentType] == "image/jpeg")
            // Not on the allow-list: Gotenberg's deny answer.
            let denied = try await GotenbergAPITests.post(client, "/forms/chromium/screenshot/url", [.text("url", "http://127.0.0.1:9/")])
            #expect(denied.status == .forbidden, "\(denied.status) \(String(buffer: denied.body))")
        }
    }

    @Test("refusals: a bad field in Gotenberg's words, a selector that matches nothing, a folder, no url, SCREENSHOT on /v1")
    func refusals() async throws {
        let gateway = try await InProcessGateway()
        let files = TemporaryDirectory("gotenberg-screenshots")
        let index = files.file("index.html")
        try Data("<html><body><p>Text</p></body></html>".utf8).write(to: URL(fileURLWithPath: index))
        try await gateway.run(converting: true) { client in
            let format = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("format", "gif"), .text("quality", "101")]
            )
            #expect(format.status == .badRequest)
            #expect(
                String(buffer: format.body)
                    == "Invalid form data: form field 'format' is invalid (got 'gif', resulting to wrong value, expected either 'png', 'jpeg' or 'webp')\nform field 'quality' is invalid (got '101', resulting to value is superior to 100)",
                "\(String(buffer: format.body))"
            )
            let selector = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index), .text("selector", "#does-not-exist")]
            )
            #expect(selector.status == .badRequest)
            #expect(String(buffer: selector.body) == "The selector '#does-not-exist' (selector) matched no element with a visible box")
            let folder = try await GotenbergAPITests.post(
                client,
                "/forms/chromium/screenshot/html",
                [.file("files", path: index)],
                headers: [.pdfgateFolder: "Shots"]
            )
            #expect(folder.status == .badRequest && String(buffer: folder.body).contains("Pdfgate-Folder"))
            let noURL = try await GotenbergAPITests.post(client, "/forms/chromium/screenshot/url", [])
            #expect(String(buffer: noURL.body) == "Invalid form data: form field 'url' is required")
            let noIndex = try await GotenbergAPITests.post(client, "/forms/chromium/screenshot/html", [])
            #expect(String(buffer: noIndex.body) == "Invalid form data: form file 'index.html' is required")

            let v1 = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"SCREENSHOT","url":"https://example.com/"}"#)
            )
            #expect(v1.status == .badRequest && v1.error.code == "invalid_type", "\(v1.status) \(v1.json)")
            #expect(v1.error.message?.contains("/forms/chromium/screenshot/") == true)
        }
    }
}
