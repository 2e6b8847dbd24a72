import Foundation
import GatewayFonts
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters

extension LocalConverterTests {
    /// Every script is drawn (DESIGN §16): a page in eleven scripts through Chromium, a CJK
    /// .docx and a Japanese .rtf through LibreOffice, a CJK EPUB through Calibre, all in their
    /// sandbox. Each glyph must be drawn by an embedded font whose installed original covers its
    /// character, and no missing-glyph box may be drawn at all (`scripts/fidelity/glyph_coverage.py`
    /// reads the content streams; it fails where a font without the script drew it).
    @Suite(.serialized, .oneConverter()) struct Scripts {
        @Test func elevenScriptsOnAWebPageAreDrawn() async throws {
            let coverage = try await convertAndCheck("scripts.html", samples: "samples.json")
            #expect(coverage.pages == 11)
            #expect(coverage.sampleCount >= 11 * 8, "\(coverage.sampleCount) sample characters checked")
        }

        @Test(arguments: ["cjk.docx", "japanese.rtf"])
        func eastAsianOfficeDocumentsAreDrawn(name: String) async throws {
            _ = try await convertAndCheck(name, samples: "documents.json", document: name)
        }

        @Test func anEbookInChineseAndJapaneseIsDrawn() async throws {
            _ = try await convertAndCheck("cjk.epub", samples: "documents.json", document: "cjk.epub")
        }

        /// The first page of each office and ebook fixture looks as it did when its reference
        /// picture was made (Fixtures/references, by perceptual hash).
        @Test(arguments: [
            "office/sample.docx", "office/sample.pptx", "office/sample.xlsx", "office/sample.odt", "office/sample.html", "ebook/sample.epub",
        ])
        func firstPagesLookAsTheyDid(fixture: String) async throws {
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let type: JobType = fixture.hasPrefix("ebook/") ? .ebookToPDF : .docToPDF
                try await converter.convert(job.request(type, job.file(Fixtures.root + "/" + fixture), timeout: .seconds(120)), events: { _ in })
                let name = fixture.replacingOccurrences(of: "/", with: "-")
                let distance = try await VisualReference.distance(job.output, reference: name)
                #expect(distance <= VisualReference.tolerance, "\(fixture)'s first page differs from its reference in \(distance) bits")
            }
        }

        /// The .docx names Word's East Asian families, none installed here: the job says which
        /// drew them, and that their widths differ.
        @Test func substitutedFamiliesAreReportedAsWarnings() async throws {
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let events = EventLog()
                try await converter.convert(job.request(.docToPDF, job.file(Fixtures.root + "/scripts/cjk.docx")), events: events.sink)
                let warnings = events.all.flatMap { event -> [String] in
                    if case .warned(let said) = event { return said } else { return [] }
                }
                #expect(
                    warnings.contains { $0.contains("MS Mincho") && $0.contains("Noto Serif CJK JP") && $0.contains("widths differ") },
                    "\(warnings)"
                )
                #expect(warnings.contains { $0.contains("Malgun Gothic") && $0.contains("Noto Sans CJK KR") }, "\(warnings)")
                #expect(warnings.contains { $0.contains("Times New Roman") && $0.contains("Liberation Serif") && $0.contains("same widths") })
            }
        }
    }
}

/// What the checker found in one converted document.
private struct Coverage {
    var pages: Int
    var sampleCount: Int
}

/// Converts `Fixtures/scripts/NAME` with the suite's converter, then holds the PDF to
/// `glyph_coverage.py` (with the converter's own fontconfig file) and `pdffonts`.
private func convertAndCheck(_ name: String, samples: String, document: String? = nil) async throws -> Coverage {
    try await withSuiteConverter { converter in
        let job = JobFixture()
        let input = Fixtures.root + "/scripts/" + name
        let type: JobType = name.hasSuffix(".epub") ? .ebookToPDF : .docToPDF
        try await converter.convert(job.request(type, job.file(input), timeout: .seconds(120)), events: { _ in })

        let distance = try await VisualReference.distance(job.output, reference: "scripts-" + name)
        #expect(distance <= VisualReference.tolerance, "\(name)'s first page differs from its reference in \(distance) bits")

        let fonts = try await PDFProbe.fonts(job.output)
        #expect(!fonts.isEmpty && fonts.allSatisfy { $0.embedded }, "\(name): fonts not embedded: \(fonts.filter { !$0.embedded })")

        let checker = (Fixtures.root as NSString).deletingLastPathComponent + "/scripts/fidelity/glyph_coverage.py"
        var arguments = [checker, job.output, "--samples", Fixtures.root + "/scripts/" + samples]
        if let document { arguments += ["--document", document] }
        var environment = ProcessInfo.processInfo.environment
        environment["FONTCONFIG_FILE"] = converter.fonts.configurationFile
        let result = try await run("/usr/bin/python3", arguments, environment: environment)
        try #require(result.status == 0, "\(name): glyph_coverage.py failed: \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let samples = report["samples"] as? [[String: Any]] ?? []
        let uncovered = samples.filter { $0["covered"] as? Bool != true }.map { "\($0["key"] ?? "?") \($0["char"] ?? "?")" }
        #expect(report["problems"] as? Int == 0, "\(name): \(uncovered) \(report["pages"] ?? [])")
        #expect(!samples.isEmpty && uncovered.isEmpty, "\(name): not drawn by a covering font: \(uncovered)")
        return Coverage(pages: (report["pages"] as? [Any])?.count ?? 0, sampleCount: samples.count)
    }
}
