import Foundation
import GatewayFonts
import GatewayTestSupport
import Testing

/// The families a document asks for, read from its markup: what the substitution warnings
/// are made of.
@Suite struct DocumentFontsTests {
    @Test func aWordFileNamesItsEastAsianFamilies() {
        let fonts = DocumentFonts.read(Fixtures.root + "/scripts/cjk.docx", name: "cjk.docx")
        for family in ["MS Mincho", "SimSun", "Malgun Gothic", "Times New Roman"] {
            #expect(fonts.stacks.contains([family]), "\(family) in \(fonts.stacks)")
        }
    }

    /// The RTF names its font in Shift-JIS bytes (`\'82\'6c…`) and gives the English name as
    /// `\falt`: the English one is what a user recognizes.
    @Test func anRTFFontTableIsReadWithItsAlternativeNames() {
        let fonts = DocumentFonts.read(Fixtures.root + "/scripts/japanese.rtf", name: "japanese.rtf")
        #expect(fonts.stacks.contains(["MS Mincho"]), "\(fonts.stacks)")
        let plain = DocumentFonts.rtf(#"{\rtf1{\fonttbl{\f0\fswiss\fcharset0 Arial;}{\f1\froman Georgia;}}\f0 Hi}"#)
        #expect(plain.stacks == [["Arial"], ["Georgia"]])
    }

    /// CSS: each stack up to its generic family, quotes dropped; `@font-face` families are the
    /// page's own and never substituted.
    @Test func cssStacksAndTheFamiliesAPageBrings() {
        let fonts = DocumentFonts.css(
            """
            @font-face { font-family: "House Sans"; src: url(house.woff2); }
            body { font-family: 'Helvetica Neue', Arial, sans-serif; }
            h1 { font-family: "House Sans", serif }
            code { font-family: monospace; }
            """ + #"<p style="font-family: Segoe UI, Roboto">x</p>"#
        )
        #expect(fonts.stacks == [["Helvetica Neue", "Arial"], ["House Sans"], ["Segoe UI", "Roboto"]], "\(fonts.stacks)")
        #expect(fonts.provided == ["house sans"])
    }

    /// What is drawn instead of a missing family: its alias, else the first fallback installed.
    @Test func theSubstituteIsTheAliasOrTheFirstFallbackInstalled() async throws {
        let directory = TemporaryDirectory("pdfgate-fonts")
        let catalog = FontCatalog(fonts: try ConverterFonts.prepare(in: directory.path, folder: nil), folder: nil)
        let installed = Set(try await catalog.families().map { $0.family.lowercased() })
        let document = DocumentFonts(stacks: [["Calibri"], ["Helvetica Neue", "Arial"], ["House Sans"], ["Carlito"]], provided: ["house sans"])
        let found = await catalog.substitutions(in: document, installed: installed)
        #expect(
            found == [
                FontSubstitution(family: "Calibri", drawnWith: "Carlito", metricCompatible: true),
                FontSubstitution(family: "Helvetica Neue", drawnWith: "Liberation Sans", metricCompatible: false),
            ]
        )
    }
}
