import Foundation
import GatewayAssembly
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing
import ZIPFoundation

@testable import GatewayServer

/// Issue 28: Gotenberg's `/forms/pdfengines/*` routes and the post-processing fields of its
/// conversion routes, carried out by our operations (qpdf, Ghostscript) and answered with
/// Gotenberg's files: one PDF as itself, several in a zip, each under Gotenberg's name.
@Suite("Gotenberg's PDF engines")
struct GotenbergPDFEnginesTests {
    let scratch = TemporaryDirectory("gotenberg-pdfengines")

    static func post(_ client: some TestClientProtocol, _ path: String, _ parts: [FormPart]) async throws -> TestResponse {
        try await GotenbergAPITests.post(client, path, parts)
    }

    /// The answer's PDF on disk, for Poppler's tools.
    func saved(_ data: Data) throws -> String {
        let path = scratch.file(UUID().uuidString + ".pdf")
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// pdfinfo's report, the first page's rotation included (`Page    1 rot:  90`).
    func info(_ data: Data) async throws -> String {
        try await run("/usr/bin/pdfinfo", ["-f", "1", "-l", "1", try saved(data)]).stdout
    }

    static func rotation(_ info: String) -> Int? { info.firstMatch(of: /rot:\s+(\d+)/).flatMap { Int($0.1) } }

    /// A page's text in the order it was drawn (`-raw`: a rotated watermark stays one word).
    func text(_ data: Data, page: Int = 1) async throws -> String {
        try await run("/usr/bin/pdftotext", ["-raw", "-f", "\(page)", "-l", "\(page)", try saved(data), "-"]).stdout
    }

    static func pages(_ info: String) -> Int { Int(info.firstMatch(of: /Pages:\s+(\d+)/)?.1 ?? "") ?? 0 }

    /// The entries of a zip answer, by name, in the zip's order.
    static func entries(_ response: TestResponse) throws -> [(name: String, data: Data)] {
        let archive = try Archive(data: Data(response.body.readableBytesView), accessMode: .read)
        return try archive.map { entry in
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            return (entry.path, data)
        }
    }

    static func filename(_ response: TestResponse) -> String? {
        response.headers[.contentDisposition]?.firstMatch(of: /filename="([^"]*)"/).map { String($0.1) }
    }

    @Test("merge takes the PDFs in natural order of their names; split answers a zip of name_0.pdf, name_1.pdf …")
    func mergeAndSplit() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            // page_10 sorts after page_2 in Gotenberg's natural order (and before it as plain text).
            let merged = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .named("files", path: Fixtures.pdf("one-page.pdf"), filename: "page_10.pdf"),
                    .named("files", path: Fixtures.pdf("no-metadata.pdf"), filename: "page_2.pdf"),
                ]
            )
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let mergedPDF = Data(merged.body.readableBytesView)
            #expect(Self.pages(try await info(mergedPDF)) == 4)
            #expect(try await text(mergedPDF, page: 1).contains("No Metadata"), "page_2.pdf comes first")
            #expect(try await text(mergedPDF, page: 4).contains("One Page Fixture"))
            #expect(Self.filename(merged) == (merged.headers[.pdfgateJobID] ?? "?") + ".pdf", "a merge is named by its job")

            let split = try await Self.post(
                client,
                "/forms/pdfengines/split",
                [.file("files", path: Fixtures.pdf("linearized.pdf")), .text("splitMode", "intervals"), .text("splitSpan", "2")]
            )
            #expect(split.status == .ok, "\(String(buffer: split.body))")
            #expect(split.headers[.contentType] == "application/zip")
            let parts = try Self.entries(split)
            #expect(parts.map(\.name) == ["linearized_0.pdf", "linearized_1.pdf", "linearized_2.pdf"])
            var counts: [Int] = []
            for part in parts { counts.append(Self.pages(try await info(part.data))) }
            #expect(counts == [2, 2, 1])

            // Pages mode with unify: one PDF of the chosen pages, under the input's name.
            let unified = try await Self.post(
                client,
                "/forms/pdfengines/split",
                [
                    .file("files", path: Fixtures.pdf("many-pages.pdf")), .text("splitMode", "pages"), .text("splitSpan", "2-3, 12"),
                    .text("splitUnify", "true"),
                ]
            )
            #expect(unified.status == .ok, "\(String(buffer: unified.body))")
            #expect(Self.filename(unified) == "many-pages.pdf")
            #expect(Self.pages(try await info(Data(unified.body.readableBytesView))) == 3)
            // Without unify, each selected page is a part.
            let perPage = try await Self.post(
                client,
                "/forms/pdfengines/split",
                [.file("files", path: Fixtures.pdf("many-pages.pdf")), .text("splitMode", "pages"), .text("splitSpan", "11-")]
            )
            #expect(try Self.entries(perPage).map(\.name) == ["many-pages_0.pdf", "many-pages_1.pdf"])
            let last = try #require(try Self.entries(perPage).last)
            #expect(try await text(last.data).contains("Page 12 of 12"))

            let documents = try await client.execute(uri: "/v1/documents", method: .get).json["documents"] as? [Any]
            #expect(documents?.isEmpty == true, "nothing kept: \(String(describing: documents))")
        }
    }

    @Test("in-place routes (rotate, encrypt, metadata, watermark, flatten) answer each file under its own name")
    func inPlaceRoutes() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let rotated = try await Self.post(
                client,
                "/forms/pdfengines/rotate",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("rotateAngle", "90")]
            )
            #expect(rotated.status == .ok, "\(String(buffer: rotated.body))")
            #expect(Self.filename(rotated) == "one-page.pdf")
            #expect(Self.rotation(try await info(Data(rotated.body.readableBytesView))) == 90)

            let encrypted = try await Self.post(
                client,
                "/forms/pdfengines/encrypt",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("userPassword", "open sesame"), .text("allowPrinting", "false")]
            )
            #expect(encrypted.status == .ok, "\(String(buffer: encrypted.body))")
            let locked = try saved(Data(encrypted.body.readableBytesView))
            let refused = try await run("/usr/bin/pdfinfo", [locked])
            #expect(refused.status != 0, "it does not open without the password")
            let opened = try await run("/usr/bin/pdfinfo", ["-upw", "open sesame", locked])
            #expect(opened.stdout.contains("print:no"), "\(opened.stdout)")

            let described = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [
                    .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("metadata", #"{"Title":"Sample","Author":"Julien Neuhart","Keywords":["first","second"]}"#),
                ]
            )
            #expect(described.status == .ok, "\(String(buffer: described.body))")
            let details = try await info(Data(described.body.readableBytesView))
            #expect(details.contains("Title:           Sample") && details.contains("Author:          Julien Neuhart"), "\(details)")
            #expect(details.contains("Keywords:        first, second"), "\(details)")

            // Two files: a zip with both, each under its own name, each watermarked.
            let marked = try await Self.post(
                client,
                "/forms/pdfengines/watermark",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("watermarkSource", "text"), .text("watermarkExpression", "CONFIDENTIAL"),
                    .text("watermarkOptions", #"{"opacity":"0.5","rotation":"30"}"#),
                ]
            )
            #expect(marked.status == .ok, "\(String(buffer: marked.body))")
            let entries = try Self.entries(marked)
            #expect(entries.map(\.name) == ["no-metadata.pdf", "one-page.pdf"])
            for entry in entries {
                let words = try await text(entry.data)
                #expect(words.contains("CONFIDENTIAL"), "\(entry.name): \(words)")
            }

            let flattened = try await Self.post(client, "/forms/pdfengines/flatten", [.file("files", path: Fixtures.pdf("many-pages.pdf"))])
            let flattenedPages = Self.pages(try await info(Data(flattened.body.readableBytesView)))
            #expect(flattened.status == .ok && flattenedPages == 12)
        }
    }

    @Test("embed attaches the embeds files to each PDF, byte for byte under their names; a conversion route takes embeds too")
    func embeds() async throws {
        let gateway = try await InProcessGateway()
        let invoice = scratch.file("factur-x.xml")
        try Data("<?xml version=\"1.0\"?><Invoice><Total>42.00</Total></Invoice>".utf8).write(to: URL(fileURLWithPath: invoice))
        try await gateway.run(converting: true) { client in
            let embedded = try await Self.post(
                client,
                "/forms/pdfengines/embed",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("embeds", path: invoice),
                    .file("embeds", path: Fixtures.pdf("no-metadata.pdf")),
                ]
            )
            #expect(embedded.status == .ok, "\(String(buffer: embedded.body))")
            #expect(Self.filename(embedded) == "one-page.pdf")
            let out = TemporaryDirectory("gotenberg-embeds")
            let path = try saved(Data(embedded.body.readableBytesView))
            let listed = try await run("/usr/bin/pdfdetach", ["-list", path]).stdout
            #expect(listed.contains("2 embedded files") && listed.contains("factur-x.xml") && listed.contains("no-metadata.pdf"), "\(listed)")
            _ = try await run("/usr/bin/pdfdetach", ["-saveall", "-o", out.path, path])
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.file("factur-x.xml"))) == Data(contentsOf: URL(fileURLWithPath: invoice)))

            // Merged, made PDF/A-3b, then attached: the order Gotenberg applies them in.
            let merged = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .file("embeds", path: invoice), .text("pdfa", "PDF/A-3b"),
                ]
            )
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let mergedPath = try saved(Data(merged.body.readableBytesView))
            #expect(try await run("/usr/bin/pdfdetach", ["-list", mergedPath]).stdout.contains("factur-x.xml"))
            #expect(Self.pages(try await info(Data(merged.body.readableBytesView))) == 4)
        }
    }

    @Test("merge builds the outline Gotenberg does: each file's own (autoIndexBookmarks), titled per file (titleBookmarks), or lists by file name")
    func mergedOutlines() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            // Inputs named for their order: one with an outline of its own (made by the route
            // that writes them), one titled, one with neither.
            let written = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [
                    .file("files", path: Fixtures.pdf("many-pages.pdf")),
                    .text("bookmarks", #"[{"title":"Intro","page":1,"children":[{"title":"Part","page":3}]}]"#),
                ]
            )
            #expect(written.status == .ok)
            let first = scratch.file("a-outlined.pdf")
            try Data(written.body.readableBytesView).write(to: URL(fileURLWithPath: first))
            let second = scratch.file("b-one.pdf")
            try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: second)
            let third = scratch.file("c-plain.pdf")
            try FileManager.default.copyItem(atPath: Fixtures.pdf("no-metadata.pdf"), toPath: third)
            let inputs: [FormPart] = [.file("files", path: third), .file("files", path: first), .file("files", path: second)]

            func outline(_ extra: [FormPart], _ files: [FormPart] = inputs) async throws -> String {
                let merged = try await Self.post(client, "/forms/pdfengines/merge", files + extra)
                #expect(merged.status == .ok, "\(String(buffer: merged.body))")
                let path = scratch.file("merged.pdf")
                try Data(merged.body.readableBytesView).write(to: URL(fileURLWithPath: path))
                let read = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.file("files", path: path)])
                return String(buffer: read.body)
            }
            let titled = try await outline([.text("titleBookmarks", "true")])
            let own = #"{"children":[{"page":3,"title":"Part"}],"page":1,"title":"Intro"}"#
            #expect(
                titled
                    == #"{"merged.pdf":[{"children":["# + own + #"],"page":1,"title":"Twelve Pages"},"#
                    + #"{"page":13,"title":"One Page Fixture"},{"page":14,"title":"c-plain"}]}"#,
                "\(titled)"
            )
            // Files go in natural order of their names, whatever the form's order.
            let indexed = try await outline([.text("autoIndexBookmarks", "true")], [.file("files", path: second), .file("files", path: first)])
            #expect(indexed == #"{"merged.pdf":["# + own + "]}", "\(indexed)")
            let mapped = try await outline(
                [.text("autoIndexBookmarks", "true"), .text("bookmarks", #"{"b-one.pdf":[{"title":"Single","page":1}]}"#)],
                [.file("files", path: second), .file("files", path: first)]
            )
            #expect(mapped == #"{"merged.pdf":["# + own + #",{"page":13,"title":"Single"}]}"#, "\(mapped)")
            // Without the fields, the leading file's outline stays (the merge keeps the first
            // input's document-level parts); the others' are not carried.
            let plain = try await outline([], [.file("files", path: second), .file("files", path: first)])
            #expect(plain == #"{"merged.pdf":["# + own + "]}", "\(plain)")
            let bad = try await Self.post(client, "/forms/pdfengines/merge", inputs + [.text("autoIndexBookmarks", "foo")])
            #expect(
                String(buffer: bad.body)
                    == #"Invalid form data: form field 'autoIndexBookmarks' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)"#
            )
        }
    }

    /// Gotenberg's own acceptance scenario for metadata: every key written (ExifTool, dates
    /// with their offsets), then read back by metadata/read as Gotenberg answers it.
    @Test("metadata/write writes every key as Gotenberg does, and metadata/read reads them back")
    func metadataRoundTrip() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let metadata =
                #"{"Author":"Julien Neuhart","Copyright":"Julien Neuhart","CreateDate":"2006-09-18T16:27:50-04:00","Creator":"Gotenberg","Keywords":["first","second"],"Marked":true,"ModDate":"2006-09-18T16:27:50-04:00","PDFVersion":1.7,"Producer":"Gotenberg","Subject":"Sample","Title":"Sample","Trapped":"Unknown"}"#
            let written = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/metadata/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("metadata", metadata)],
                headers: [.gotenbergOutputFilename: "foo"]
            )
            #expect(written.status == .ok, "\(String(buffer: written.body))")
            let path = scratch.file("foo.pdf")
            try Data(written.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            let read = try await Self.post(client, "/forms/pdfengines/metadata/read", [.file("files", path: path)])
            let tags = Self.json(read)["foo.pdf"] as? [String: Any] ?? [:]
            #expect(tags["Author"] as? String == "Julien Neuhart" && tags["Copyright"] as? String == "Julien Neuhart", "\(tags)")
            #expect(tags["CreateDate"] as? String == "2006:09:18 16:27:50-04:00", "\(tags)")
            #expect(tags["ModDate"] as? String == "2006:09:18 16:27:50-04:00", "\(tags)")
            #expect(tags["Keywords"] as? [String] == ["first", "second"], "\(tags)")
            #expect(tags["Marked"] as? Bool == true && tags["Trapped"] as? String == "Unknown", "\(tags)")
            #expect(tags["Producer"] as? String == "Gotenberg" && tags["Title"] as? String == "Sample", "\(tags)")
            // Poppler reads the same document information.
            let info = try await run("/usr/bin/pdfinfo", [path]).stdout
            #expect(info.contains("Title:           Sample") && info.contains("Producer:        Gotenberg"), "\(info)")
        }
    }

    /// The JSON object of a read route's answer.
    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    @Test("bookmarks are written (one list, or one per file by name) and read back; metadata/read is ExifTool's, as Gotenberg's is")
    func bookmarksAndMetadataRead() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let none = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(none.status == .ok && none.headers[.contentType] == "application/json", "\(String(buffer: none.body))")
            #expect(String(buffer: none.body) == #"{"one-page.pdf":[]}"#)

            let outline = #"[{"title":"Index","page":1,"children":[{"title":"Sub-index","page":3},{"title":"Ünïcode – “quoted”","page":2}]}]"#
            let written = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [.file("files", path: Fixtures.pdf("many-pages.pdf")), .text("bookmarks", outline)]
            )
            #expect(written.status == .ok && Self.filename(written) == "many-pages.pdf", "\(String(buffer: written.body))")
            let path = try saved(Data(written.body.readableBytesView))
            let read = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.named("files", path: path, filename: "book.pdf")])
            let expected = try JSONSerialization.jsonObject(with: Data(outline.utf8)) as? [[String: Any]]
            let got = Self.json(read)["book.pdf"] as? [[String: Any]]
            #expect(got.map { NSArray(array: $0) } == expected.map { NSArray(array: $0) }, "\(String(buffer: read.body))")
            // Poppler reads the same outline.
            let xml = try await run("/usr/bin/pdftohtml", ["-xml", "-i", "-q", "-stdout", path]).stdout
            #expect(xml.contains("<outline>") && xml.contains("Sub-index") && xml.contains("Ünïcode – “quoted”"), "\(xml.prefix(2000))")

            // One list per file, by name, in a zip.
            let both = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("bookmarks", #"{"one-page.pdf":[{"title":"One","page":1}],"no-metadata.pdf":[{"title":"Two","page":1}]}"#),
                ]
            )
            let entries = try Self.entries(both)
            #expect(entries.map(\.name) == ["no-metadata.pdf", "one-page.pdf"], "\(String(buffer: both.body))")
            var titles: [String: String] = [:]
            for entry in entries {
                let answer = try await Self.post(
                    client,
                    "/forms/pdfengines/bookmarks/read",
                    [.named("files", path: try saved(entry.data), filename: entry.name)]
                )
                titles[entry.name] = ((Self.json(answer)[entry.name] as? [[String: Any]])?.first?["title"] as? String)
            }
            #expect(titles == ["one-page.pdf": "One", "no-metadata.pdf": "Two"])

            // Any route takes one list, applied to what it made: a merge of 3 + 1 pages.
            let merged = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .file("files", path: Fixtures.pdf("no-metadata.pdf")), .file("files", path: Fixtures.pdf("one-page.pdf")),
                    .text("bookmarks", #"[{"title":"Second part","page":4}]"#),
                ]
            )
            let mergedPath = try saved(Data(merged.body.readableBytesView))
            let mergedRead = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.named("files", path: mergedPath, filename: "m.pdf")])
            let mergedOutline = Self.json(mergedRead)["m.pdf"] as? [[String: Any]]
            #expect(
                mergedOutline?.first?["title"] as? String == "Second part" && mergedOutline?.first?["page"] as? Int == 4,
                "\(String(buffer: mergedRead.body))"
            )
            // Lists by file name belong to bookmarks/write and merge.
            let byName = try await Self.post(
                client,
                "/forms/pdfengines/flatten",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("bookmarks", #"{"one-page.pdf":[{"title":"A","page":1}]}"#)]
            )
            #expect(
                byName.status == .badRequest && String(buffer: byName.body).contains("bookmarks/write and merge"),
                "\(String(buffer: byName.body))"
            )

            // A page the document does not have, and no bookmarks at all.
            let past = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("bookmarks", #"[{"title":"Far","page":9}]"#)]
            )
            #expect(past.status == .badRequest && String(buffer: past.body).contains("page 9"), "\(String(buffer: past.body))")
            let missing = try await Self.post(client, "/forms/pdfengines/bookmarks/write", [])
            #expect(
                String(buffer: missing.body) == "Invalid form data: form field 'bookmarks' is required\nno form file found for extensions: [.pdf]"
            )

            // metadata/write, then metadata/read: ExifTool's names and date format.
            let described = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [
                    .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("metadata", #"{"Title":"Sample","Author":"Julien Neuhart","CreateDate":"2006-09-18T16:27:50-04:00"}"#),
                ]
            )
            let describedPath = try saved(Data(described.body.readableBytesView))
            let metadata = try await Self.post(
                client,
                "/forms/pdfengines/metadata/read",
                [.named("files", path: describedPath, filename: "foo.pdf"), .file("files", path: Fixtures.pdf("one-page.pdf"))]
            )
            #expect(metadata.status == .ok && metadata.headers[.contentType] == "application/json", "\(String(buffer: metadata.body))")
            let foo = Self.json(metadata)["foo.pdf"] as? [String: Any] ?? [:]
            #expect(foo["Title"] as? String == "Sample" && foo["Author"] as? String == "Julien Neuhart", "\(foo)")
            // Written by ExifTool, as Gotenberg's: the offset is kept.
            #expect(foo["CreateDate"] as? String == "2006:09:18 16:27:50-04:00", "\(foo)")
            // FileName is the name posted (as Gotenberg before 8.30 answered one); no path leaks.
            #expect(foo["PageCount"] as? Int == 3 && foo["FileName"] as? String == "foo.pdf" && foo["Directory"] == nil, "\(foo)")
            #expect(Self.json(metadata)["one-page.pdf"] is [String: Any])
        }
    }

    @Test("a conversion route takes the post-processing fields: LibreOffice's several files, each split, in one zip")
    func conversionPostProcessing() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [
                    .file("files", path: Fixtures.office("sample.docx")), .file("files", path: Fixtures.office("sample.odt")),
                    .text("rotateAngle", "180"), .text("metadata", #"{"Title":"Converted"}"#),
                ],
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(answer.headers[.contentType] == "application/zip")
            let entries = try Self.entries(answer)
            #expect(entries.map(\.name) == ["sample.docx.pdf", "sample.odt.pdf"])
            for entry in entries {
                let details = try await info(entry.data)
                #expect(details.contains("Title:           Converted") && Self.rotation(details) == 180, "\(entry.name): \(details)")
            }
        }
    }

    @Test("refusals in Gotenberg's words, and what pdfgate cannot do named rather than dropped")
    func refusals() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let nothing = try await Self.post(client, "/forms/pdfengines/split", [])
            #expect(
                String(buffer: nothing.body)
                    == "Invalid form data: form field 'splitMode' is required\nform field 'splitSpan' is required\nno form file found for extensions: [.pdf]"
            )
            let angle = try await Self.post(
                client,
                "/forms/pdfengines/rotate",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("rotateAngle", "45")]
            )
            #expect(
                angle.status == .badRequest
                    && String(buffer: angle.body)
                        == "Invalid form data: form field 'rotateAngle' is invalid (got '45', resulting to wrong value, expected 90, 180, or 270)"
            )
            let noPassword = try await Self.post(client, "/forms/pdfengines/encrypt", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(String(buffer: noPassword.body) == "Invalid form data: a 'userPassword' or 'ownerPassword' is required")
            let noMetadata = try await Self.post(client, "/forms/pdfengines/metadata/write", [])
            #expect(
                String(buffer: noMetadata.body) == "Invalid form data: form field 'metadata' is required\nno form file found for extensions: [.pdf]"
            )
            let neither = try await Self.post(client, "/forms/pdfengines/convert", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(String(buffer: neither.body) == "Invalid form data: either 'pdfa' or 'pdfua' form fields must be provided")
            // A key ExifTool would act on the file with is refused by name, not silently dropped.
            let rename = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("metadata", #"{"FileName":"../../evil.pdf"}"#)]
            )
            #expect(rename.status == .badRequest && String(buffer: rename.body).contains("'FileName'"), "\(String(buffer: rename.body))")
            let embeds = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("embeds", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("pdfa", "PDF/A-2b"),
                ]
            )
            #expect(
                String(buffer: embeds.body)
                    == "Invalid form data: PDF format 'PDF/A-2b' does not support embedded files; only PDF/A-3 variants allow attachments",
                "\(String(buffer: embeds.body))"
            )
            let pdfaEncrypted = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("pdfa", "PDF/A-2b"), .text("userPassword", "x")]
            )
            #expect(String(buffer: pdfaEncrypted.body) == "Invalid form data: PDF/A format is incompatible with encryption")
        }
    }
}

/// Gotenberg's `downloadFrom`: files fetched under our SSRF rules join the form.
@Suite("Gotenberg's downloadFrom")
struct GotenbergDownloadFromTests {
    @Test("listed files are fetched as inputs or embeds; a bad status, a missing name, a refused URL are Gotenberg's refusals")
    func downloads() async throws {
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf"))))
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            switch request.path {
            case "/report.pdf":
                #expect(request.header("X-Token") == "abc", "the entry's extra headers are sent")
                try response.respond(
                    status: 200,
                    headers: [("Content-Type", "application/pdf"), ("Content-Disposition", #"attachment; filename="report.pdf""#)],
                    body: pdf
                )
            case "/invoice.xml":
                try response.respond(status: 200, headers: [("Content-Disposition", #"attachment; filename="invoice.xml""#)], text: "<Invoice/>")
            case "/nameless": try response.respond(status: 200, text: "x")
            default: try response.respond(status: 404)
            }
        }
        defer { served.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(served.port)"] }
        let scratch = TemporaryDirectory("gotenberg-downloads")
        try await gateway.run(converting: true) { client in
            let list = """
                [{"url":"\(served.url("/report.pdf"))","extraHttpHeaders":{"X-Token":"abc"}},{"url":"\(served.url("/invoice.xml"))","embedded":true}]
                """
            let merged = try await GotenbergPDFEnginesTests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", list)]
            )
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let path = scratch.file("merged.pdf")
            try Data(merged.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            #expect(try await pdfinfoPageCount(path) == 13, "one uploaded page and the twelve downloaded")
            #expect(try await run("/usr/bin/pdfdetach", ["-list", path]).stdout.contains("invoice.xml"), "the embedded download is attached")

            func refusal(_ list: String) async throws -> (HTTPResponse.Status, String) {
                let answer = try await GotenbergPDFEnginesTests.post(
                    client,
                    "/forms/pdfengines/merge",
                    [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", list)]
                )
                return (answer.status, String(buffer: answer.body))
            }
            let missing = try await refusal(#"[{"url":"\#(served.url("/gone.pdf"))"}]"#)
            #expect(missing == (.badRequest, "Unable to download file from '\(served.url("/gone.pdf"))': got status: '404'"), "\(missing)")
            let nameless = try await refusal(#"[{"url":"\#(served.url("/nameless"))"}]"#)
            #expect(nameless == (.badRequest, "No 'Content-Disposition' header from '\(served.url("/nameless"))'"), "\(nameless)")
            let refused = try await refusal(#"[{"url":"http://127.0.0.1:9/secret.pdf"}]"#)
            #expect(refused.0 == .forbidden, "\(refused)")
            let empty = try await refusal(#"[{"url":" "}]"#)
            #expect(empty == (.badRequest, "Invalid 'downloadFrom' form field entry 0: URL must be set"), "\(empty)")
            let garbage = try await refusal("{nope")
            #expect(garbage.0 == .badRequest && garbage.1.hasPrefix("Invalid 'downloadFrom' form field value"), "\(garbage)")
        }
    }

    @Test("the operator's deny and only patterns hold for downloads, webhooks and /v1 URL jobs alike, allowed hosts included")
    func operatorPatterns() async throws {
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Disposition", #"attachment; filename="a.pdf""#)], text: "%PDF")
        }
        defer { served.stop() }
        let loaded = try ServerConfiguration.load(file: nil, environment: ["PDFGATE_DENY_URLS": "/private/\n\\.exe$"])
        #expect(loaded.urlPatterns.deny == ["/private/", "\\.exe$"])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: nil, environment: ["PDFGATE_ONLY_URLS": "[a-"]) }
        let gateway = try await InProcessGateway {
            $0.urlAllowList = ["127.0.0.1:\(served.port)"]
            $0.urlPatterns = loaded.urlPatterns
        }
        try await gateway.run { client in
            let download = try await GotenbergPDFEnginesTests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("downloadFrom", #"[{"url":"\#(served.url("/private/a.pdf"))"}]"#)]
            )
            #expect(download.status == .forbidden, "Gotenberg's answer to a denied URL: \(String(buffer: download.body))")
            let webhook = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf"))],
                headers: [.gotenbergWebhookURL: served.url("/private/hook"), .gotenbergWebhookErrorURL: served.url("/errors")]
            )
            #expect(webhook.status == .forbidden)
            let job = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"URL_TO_PDF","url":"\#(served.url("/setup.exe"))"}"#)
            )
            #expect(job.status == .unprocessableContent && job.json["error"] as? String == "url_forbidden", "\(job.json)")
            #expect((job.json["error_message"] as? String)?.contains("deny pattern '\\.exe$'") == true, "\(job.json)")
        }
    }
}
