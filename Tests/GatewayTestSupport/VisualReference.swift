import Foundation

/// The first page of a converter's output compared with a picture of it kept in the repository
/// (`Fixtures/references/NAME.png`, 200 pixels wide, grey), by perceptual hash: a rendering
/// regression — a lost font, a page that breaks elsewhere, an image gone — fails the test.
/// `PDFGATE_WRITE_REFERENCES=1` writes the pictures anew instead (look at them before committing).
public enum VisualReference {
    /// Bits of `PerceptualHash` (576) that may differ: renderings of the same layout by the same
    /// tools differ in a handful (antialiasing); a changed line or glyph shape in many more.
    public static let tolerance = 40

    /// The reference picture's path for `name`.
    public static func path(_ name: String) -> String { Fixtures.root + "/references/" + name + ".png" }

    /// The distance between `pdf`'s first page and the reference `name`; writes the reference
    /// when asked to (and then answers 0).
    public static func distance(_ pdf: String, reference name: String) async throws -> Int {
        let reference = path(name)
        if ProcessInfo.processInfo.environment["PDFGATE_WRITE_REFERENCES"] == "1" {
            try FileManager.default.createDirectory(atPath: Fixtures.root + "/references", withIntermediateDirectories: true)
            let prefix = String(reference.dropLast(4))
            let written = try await run(
                "pdftoppm",
                ["-f", "1", "-l", "1", "-gray", "-png", "-singlefile", "-scale-to-x", "200", "-scale-to-y", "-1", pdf, prefix]
            )
            guard written.status == 0 else { throw PDFProbeError("pdftoppm could not render \(pdf): \(written.stderr)") }
            return 0
        }
        guard FileManager.default.fileExists(atPath: reference) else {
            throw PDFProbeError("no reference picture \(reference); run the test with PDFGATE_WRITE_REFERENCES=1 and look at it")
        }
        return try await PerceptualHash.ofFirstPage(pdf).distance(to: try await PerceptualHash.ofImage(reference))
    }
}
