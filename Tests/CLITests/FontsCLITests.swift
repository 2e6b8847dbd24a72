import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate fonts`: what the converters draw with, an operator's folder included.
@Suite("pdfgate fonts")
struct FontsCLITests {
    @Test func listsTheSystemsFamiliesAndAFolderOfOnesOwn() async throws {
        let cli = CLI()
        let folder = TemporaryDirectory("pdfgate-company-fonts")
        try CustomFont.write(into: folder.path)
        let list = try #require(try await cli.json("fonts", "--fonts", folder.path) as? [String: Any])
        let families = list["families"] as? [[String: Any]] ?? []
        let custom = families.first { $0["family"] as? String == CustomFont.family }
        #expect(custom?["custom"] as? Bool == true && (custom?["scripts"] as? [String])?.contains("Latin") == true, "\(String(describing: custom))")
        #expect(families.first { $0["family"] as? String == "Noto Sans Thai" }?["custom"] as? Bool == false)

        let table = try await cli("fonts", "--substitutes")
        #expect(table.status == 0 && table.stdout.contains("Noto Sans CJK JP") && table.stdout.contains("Carlito"), "\(table.stdout)")
        #expect(table.stdout.contains("MS Mincho") && !table.stdout.contains(CustomFont.family))

        let refused = try await cli("fonts", "--fonts", folder.file("missing"))
        #expect(
            refused.status != 0 && refused.stderr.contains("invalid_font_folder") && refused.stderr.contains("does not exist"),
            "\(refused.stderr)"
        )
    }
}
