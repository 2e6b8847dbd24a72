import Foundation
import GatewayFonts
import GatewayJobModel
import GatewaySandbox
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters

extension LocalConverterTests {
    /// The fonts every converter sees (DESIGN §16): the Office families drawn with their
    /// stand-ins, and the operator's own folder reaching all three converters in their sandbox.
    @Suite(.serialized) struct Fonts {
        /// Calibri and the rest, asked through the converters' own fontconfig file: the
        /// metric-compatible family where one exists, the Noto face of the script otherwise.
        @Test(arguments: [
            ("Calibri", "Carlito"), ("Cambria", "Caladea"), ("Arial", "Liberation Sans"), ("Helvetica", "Nimbus Sans"),
            ("Times New Roman", "Liberation Serif"), ("Courier New", "Liberation Mono"), ("MS Mincho", "Noto Serif CJK JP"),
            ("ＭＳ 明朝", "Noto Serif CJK JP"), ("MS Gothic", "Noto Sans CJK JP"), ("SimSun", "Noto Serif CJK SC"),
            ("MingLiU", "Noto Serif CJK TC"), ("PMingLiU", "Noto Serif CJK TC"), ("Malgun Gothic", "Noto Sans CJK KR"),
            ("Angsana New", "Noto Serif Thai"), ("Mangal", "Noto Sans Devanagari"), ("Segoe UI Emoji", "Noto Color Emoji"),
        ])
        func officeFamiliesAreDrawnWithTheirStandIns(family: String, substitute: String) async throws {
            let directory = TemporaryDirectory("pdfgate-fonts")
            let fonts = try ConverterFonts.prepare(in: directory.path, folder: nil)
            #expect(try await FontCatalog(fonts: fonts, folder: nil).match(family) == substitute)
        }

        /// Every script the issue names has a family that covers it, and the catalog says so.
        @Test func theCatalogNamesAFamilyForEveryScript() async throws {
            let directory = TemporaryDirectory("pdfgate-fonts")
            let list = try await FontCatalog(fonts: try ConverterFonts.prepare(in: directory.path, folder: nil), folder: nil).list()
            for script in [
                "Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai", "Japanese", "Chinese (Simplified)", "Korean", "Emoji",
            ] {
                #expect(list.families.contains { $0.scripts.contains(script) }, "no family covers \(script)")
            }
            #expect(list.families.first { $0.family == "Noto Sans CJK JP" }?.scripts.contains("Japanese") == true)
            #expect(list.substitutes.contains { $0.family == "Calibri" && $0.substitute == "Carlito" && $0.metricCompatible && $0.installed })
        }

        @Test func aFontFolderThatIsNoFolderIsRefusedSayingWhy() throws {
            let directory = TemporaryDirectory("pdfgate-fonts")
            #expect { try FontFolder(path: directory.file("missing")) } throws: {
                ($0 as? FontFolderError)?.message.contains("does not exist") == true
            }
            let file = directory.file("font.ttf")
            try Data().write(to: URL(fileURLWithPath: file))
            #expect { try FontFolder(path: file) } throws: { ($0 as? FontFolderError)?.code == "invalid_font_folder" }
        }

        /// A company typeface dropped into the `--fonts` folder while the converters run warm:
        /// the watch sees it, and Chromium, LibreOffice and Calibre each draw with it in their
        /// sandbox (read-only) and embed it, without a restart of the gateway. Before it came,
        /// the same documents were drawn with a fallback by the same warm Chromium and LibreOffice.
        @Test(.timeLimit(.minutes(3))) func anOperatorsFontReachesEveryConverterWhileItRuns() async throws {
            let folder = TemporaryDirectory("pdfgate-company-fonts")
            let documents = TemporaryDirectory("pdfgate-font-documents")
            let page = documents.file("letter.html")
            try "<!DOCTYPE html><html><body><p style=\"font-family: '\(CustomFont.family)'\">Company typeface</p></body></html>"
                .write(toFile: page, atomically: true, encoding: .utf8)
            let rtf = documents.file("letter.rtf")
            try "{\\rtf1\\ansi{\\fonttbl{\\f0\\fswiss \(CustomFont.family);}}\\f0\\fs32 Company typeface\\par}".write(
                toFile: rtf,
                atomically: true,
                encoding: .utf8
            )
            let book = try await CustomFontBook.write(into: documents.path)

            let configuration = LocalConverter.Configuration(fontFolder: try FontFolder(path: folder.path))
            try await withConverter(configuration) { converter in
                // Chromium and LibreOffice start warm without it.
                for input in [page, rtf] {
                    #expect(try await embeddedFontNames(converter, .docToPDF, input).contains(CustomFont.postScriptName) == false)
                }
                let generation = converter.fonts.generation.current

                let watch = FontFolderWatch(
                    folder: try FontFolder(path: folder.path),
                    generation: converter.fonts.generation,
                    interval: .milliseconds(100)
                )
                let watching = Task { await watch.run() }
                defer { watching.cancel() }
                try CustomFont.write(into: folder.path)
                try await eventually("the watch saw the new font") { converter.fonts.generation.current > generation }

                for (type, input) in [(JobType.docToPDF, page), (.docToPDF, rtf), (.ebookToPDF, book)] {
                    let names = try await embeddedFontNames(converter, type, input)
                    #expect(names.contains(CustomFont.postScriptName), "\((input as NSString).lastPathComponent): \(names)")
                }
            }
        }
    }
}

/// Converts `input` and answers the fonts of the PDF, failing the test where one is not embedded.
private func embeddedFontNames(_ converter: LocalConverter, _ type: JobType, _ input: String) async throws -> [String] {
    let job = JobFixture()
    try await converter.convert(job.request(type, job.file(input)), events: { _ in })
    let fonts = try await PDFProbe.fonts(job.output)
    let notEmbedded = fonts.filter { !$0.embedded }
    #expect(notEmbedded.isEmpty, "\((input as NSString).lastPathComponent) has fonts not embedded: \(notEmbedded)")
    return fonts.map(\.name)
}

/// An EPUB whose stylesheet asks for the custom font, zipped by Info-ZIP (`mimetype` first, stored).
private enum CustomFontBook {
    static func write(into directory: String) async throws -> String {
        let root = directory + "/book"
        let files = [
            "mimetype": "application/epub+zip",
            "META-INF/container.xml": """
            <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\
            <rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
            """,
            "content.opf": """
            <?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">\
            <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Letter</dc:title><dc:language>en</dc:language>\
            <dc:identifier id="id">pdfgate-font-test</dc:identifier></metadata><manifest>\
            <item id="c" href="chapter.xhtml" media-type="application/xhtml+xml"/><item id="s" href="style.css" media-type="text/css"/>\
            </manifest><spine><itemref idref="c"/></spine></package>
            """,
            "style.css": "p { font-family: '\(CustomFont.family)'; font-size: 2em; }",
            "chapter.xhtml": """
            <?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Letter</title>\
            <link rel="stylesheet" type="text/css" href="style.css"/></head><body><p>Company typeface</p></body></html>
            """,
        ]
        for (name, text) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let book = directory + "/letter.epub"
        let zipped = try await run(
            "/bin/sh",
            ["-c", #"cd "$0" && zip -X0q "$1" mimetype && zip -Xrq "$1" META-INF content.opf style.css chapter.xhtml"#, root, book]
        )
        guard zipped.status == 0 else { throw PDFProbeError("zip failed: \(zipped.stderr)") }
        return book
    }
}

extension LocalConverterTests.Fonts {
    /// Fonts a document brings are drawn with and not reported as substituted: a face embedded
    /// in a .docx (Word's "embed fonts in the file", obfuscated as ECMA-376 says) through
    /// LibreOffice, and `@font-face` in an HTML bundle through Chromium.
    @Test func fontsADocumentCarriesAreUsed() async throws {
        let documents = TemporaryDirectory("pdfgate-carried-fonts")
        let font = try CustomFont.write(into: documents.path)
        let word = try await CarriedFonts.word(embedding: font, in: documents.path)
        let page = try await CarriedFonts.htmlBundle(with: font, in: documents.path)
        try await withConverter { converter in
            for input in [word, page] {
                let job = JobFixture()
                let events = EventLog()
                try await converter.convert(job.request(.docToPDF, job.file(input)), events: events.sink)
                let fonts = try await PDFProbe.fonts(job.output)
                #expect(fonts.contains { $0.name == CustomFont.postScriptName && $0.embedded }, "\(input): \(fonts)")
                let warned = events.all.contains { event in
                    if case .warned(let said) = event { said.contains { $0.contains(CustomFont.family) } } else { false }
                }
                #expect(!warned, "\(input): \(events.all)")
            }
        }
    }
}

/// Documents that carry `CustomFont` themselves, zipped by Info-ZIP.
private enum CarriedFonts {
    /// A .docx whose font table embeds `font`, obfuscated with a GUID key: the first 32 bytes
    /// XORed with the key's 16 bytes, read from the GUID's text back to front.
    static func word(embedding font: String, in directory: String) async throws -> String {
        let key = "{" + UUID().uuidString.uppercased() + "}"
        let positions = [35, 33, 31, 29, 27, 25, 22, 20, 17, 15, 12, 10, 7, 5, 3, 1]
        let characters = Array(key)
        let keyBytes = positions.map { UInt8(String(characters[$0...$0 + 1]), radix: 16)! }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: font)))
        for index in 0..<32 { bytes[index] ^= keyBytes[index % 16] }
        let w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
        let r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        let files: [String: Data] = [
            "[Content_Types].xml": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
                <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
                <Default Extension="xml" ContentType="application/xml"/>\
                <Default Extension="odttf" ContentType="application/vnd.openxmlformats-officedocument.obfuscatedFont"/>\
                <Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>\
                <Override PartName="/word/fontTable.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.fontTable+xml"/>\
                </Types>
                """.utf8
            ),
            "_rels/.rels": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId1" Type="\(r)/officeDocument" Target="word/document.xml"/></Relationships>
                """.utf8
            ),
            "word/_rels/document.xml.rels": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId1" Type="\(r)/fontTable" Target="fontTable.xml"/></Relationships>
                """.utf8
            ),
            "word/_rels/fontTable.xml.rels": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId1" Type="\(r)/font" Target="fonts/font1.odttf"/></Relationships>
                """.utf8
            ),
            "word/fontTable.xml": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><w:fonts xmlns:w="\(w)" xmlns:r="\(r)">\
                <w:font w:name="\(CustomFont.family)"><w:embedRegular r:id="rId1" w:fontKey="\(key)"/></w:font></w:fonts>
                """.utf8
            ),
            "word/fonts/font1.odttf": Data(bytes),
            "word/document.xml": Data(
                """
                <?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="\(w)"><w:body><w:p><w:r>\
                <w:rPr><w:rFonts w:ascii="\(CustomFont.family)" w:hAnsi="\(CustomFont.family)"/><w:sz w:val="32"/></w:rPr>\
                <w:t>Company typeface, carried in the file</w:t></w:r></w:p></w:body></w:document>
                """.utf8
            ),
        ]
        return try await zip(files, as: directory + "/carried.docx", in: directory + "/docx")
    }

    /// A page and its font, zipped as an HTML bundle; the page loads the font with `@font-face`.
    static func htmlBundle(with font: String, in directory: String) async throws -> String {
        let page = """
            <!DOCTYPE html><html><head><style>@font-face { font-family: "\(CustomFont.family)"; src: url(company.ttf); }\
            p { font-family: "\(CustomFont.family)"; font-size: 24px; }</style></head><body><p>Company typeface, from the page</p></body></html>
            """
        let files = ["index.html": Data(page.utf8), "company.ttf": try Data(contentsOf: URL(fileURLWithPath: font))]
        return try await zip(files, as: directory + "/carried.zip", in: directory + "/bundle")
    }

    static func zip(_ files: [String: Data], as archive: String, in root: String) async throws -> String {
        for (name, data) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path))
        }
        let zipped = try await run("/bin/sh", ["-c", #"cd "$0" && zip -Xrq "$1" ."#, root, archive])
        guard zipped.status == 0 else { throw PDFProbeError("zip failed: \(zipped.stderr)") }
        return archive
    }
}
