import Foundation
import GatewayAssembly
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing
import ZIPFoundation

@testable import GatewayGotenbergAPI
@testable import GatewayServer
@testable import GatewaySettings

/// Gotenberg's `/forms/pdfengines/*` routes and the post-processing fields of its
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
            // The engines' words for the last page: qpdf's z, pdftk's end.
            for span in ["11-z", "11-end"] {
                let unified = try await Self.post(
                    client,
                    "/forms/pdfengines/split",
                    [
                        .file("files", path: Fixtures.pdf("many-pages.pdf")), .text("splitMode", "pages"), .text("splitSpan", span),
                        .text("splitUnify", "true"),
                    ]
                )
                #expect(unified.status == .ok, "\(span): \(String(buffer: unified.body))")
                #expect(try await GotenbergAPITests.pages(unified, in: TemporaryDirectory("split-z")) == 2, "\(span)")
            }
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

    @Test("a PDF/A document split into parts: each part keeps the PDF/A claim of its XMP")
    func splitPartsKeepPDFA() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("split-pdfa")
        try await gateway.run(converting: true) { client in
            // Twelve pages made PDF/A, then cut into three parts: qpdf's --split-pages alone
            // would leave the XMP, and with it the claim, behind.
            let archival = try await Self.post(
                client,
                "/forms/pdfengines/convert",
                [.file("files", path: Fixtures.pdf("many-pages.pdf")), .text("pdfa", "PDF/A-2b")]
            )
            #expect(archival.status == .ok, "\(String(buffer: archival.body))")
            let whole = scratch.file("whole.pdf")
            try Data(buffer: archival.body).write(to: URL(fileURLWithPath: whole))
            let parts = try await Self.post(
                client,
                "/forms/pdfengines/split",
                [.named("files", path: whole, filename: "whole.pdf"), .text("splitMode", "intervals"), .text("splitSpan", "5")]
            )
            #expect(parts.status == .ok, "\(String(buffer: parts.body))")
            let entries = try Self.entries(parts)
            #expect(entries.map(\.name) == ["whole_0.pdf", "whole_1.pdf", "whole_2.pdf"])
            for (name, data) in entries {
                #expect(data.range(of: Data("pdfaid:part".utf8)) != nil, "\(name) lost its PDF/A claim")
                let part = scratch.file(name)
                try data.write(to: URL(fileURLWithPath: part))
                #expect(try await pdfinfoPageCount(part) == (name == "whole_2.pdf" ? 2 : 5), "\(name)")
            }
        }
    }

    @Test("engines set to pdftk alone bring pdftk's limits, in Gotenberg's words; the other values change nothing")
    func pdftkLimits() async throws {
        let loaded = try ServerConfiguration.load(
            environment: ["PDFENGINES_ENCRYPT_ENGINES": "pdftk", "PDFENGINES_ROTATE_ENGINES": "pdftk", "PDFENGINES_STAMP_ENGINES": "qpdf,pdftk"]
        )
        #expect(loaded.gotenbergPDFTkOnly == ["encrypt", "rotate"])
        let gateway = try await InProcessGateway { $0.gotenbergPDFTkOnly = loaded.gotenbergPDFTkOnly }
        try await gateway.run(converting: true) { client in
            let pdf = FormPart.file("files", path: Fixtures.pdf("many-pages.pdf"))
            let userOnly = try await Self.post(client, "/forms/pdfengines/encrypt", [pdf, .text("userPassword", "foo")])
            #expect(userOnly.status == .badRequest && String(buffer: userOnly.body).hasPrefix("pdftk: both 'userPassword' and 'ownerPassword'"))
            let both = try await Self.post(client, "/forms/pdfengines/encrypt", [pdf, .text("userPassword", "foo"), .text("ownerPassword", "bar")])
            #expect(both.status == .ok)
            let somePages = try await Self.post(client, "/forms/pdfengines/rotate", [pdf, .text("rotateAngle", "90"), .text("rotatePages", "1,3")])
            #expect(somePages.status == .internalServerError)
            let stamped = try await Self.post(client, "/forms/pdfengines/stamp", [pdf, .text("stampSource", "text"), .text("stampExpression", "X")])
            #expect(stamped.status == .ok, "stamp's engines were not pdftk alone")
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
            // A key ExifTool would act on the file with is dropped, as Gotenberg drops it, group
            // prefix or not, and said so; the other keys are written.
            let rename = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")),
                    .text("metadata", #"{"System:FileName":"../../evil.pdf","Directory":"/tmp","Author":"legit"}"#),
                ]
            )
            #expect(rename.status == .ok, "\(String(buffer: rename.body))")
            let warnings = rename.headers[values: .pdfgateWarning].joined(separator: " | ")
            #expect(warnings.contains("'System:FileName' would act on the file") && warnings.contains("'Directory'"), "\(warnings)")
            let scratch = TemporaryDirectory("metadata-drop")
            let renamed = scratch.file("out.pdf")
            try Data(buffer: rename.body).write(to: URL(fileURLWithPath: renamed))
            #expect(try await run("/usr/bin/pdfinfo", [renamed]).stdout.contains("legit"))
            // A control character could start another ExifTool argument: Gotenberg's own 400.
            let injected = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("metadata", #"{"Title":"test\n-FileName=/tmp/inject_proof"}"#)]
            )
            #expect(
                injected.status == .badRequest
                    && String(buffer: injected.body)
                        == "The requested metadata could not be written; ensure values are valid and free of control characters.",
                "\(String(buffer: injected.body))"
            )
            // A split by pages that no engine could read is Gotenberg's engine error.
            let badSpan = try await Self.post(
                client,
                "/forms/pdfengines/split",
                [.file("files", path: Fixtures.pdf("many-pages.pdf")), .text("splitMode", "pages"), .text("splitSpan", "foo")]
            )
            #expect(
                String(buffer: badSpan.body)
                    == "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."
            )
            let badBookmarks = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("bookmarks", "foo")]
            )
            #expect(
                String(buffer: badBookmarks.body)
                    == "Invalid form data: form field 'bookmarks' is invalid (got 'foo', resulting to unmarshal bookmarks: invalid character 'o' in literal false (expecting 'a'))",
                "\(String(buffer: badBookmarks.body))"
            )
            let badPDFUA = try await Self.post(
                client,
                "/forms/pdfengines/convert",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("pdfua", "foo")]
            )
            #expect(
                String(buffer: badPDFUA.body)
                    == #"Invalid form data: form field 'pdfua' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)"#
            )
            let notJSON = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("metadata", "foo")]
            )
            #expect(
                String(buffer: notJSON.body)
                    == "Invalid form data: form field 'metadata' is invalid (got 'foo', resulting to unmarshal metadata: invalid character 'o' in literal false (expecting 'a'))",
                "\(String(buffer: notJSON.body))"
            )
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
