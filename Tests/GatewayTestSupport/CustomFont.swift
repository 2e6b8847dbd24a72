import Foundation

/// A font no system has, for tests of the operator's font folder: DejaVu Sans (Debian's
/// fonts-dejavu-core) with its names rewritten in place to `family` and `postScriptName`, each
/// as long as the name it replaces, so no table moves. fontconfig does not check checksums.
public enum CustomFont {
    /// The family name the font answers to.
    public static let family = "PdfgateTest"
    /// Its PostScript name, which `pdffonts` shows where a PDF embeds it.
    public static let postScriptName = "PdfgateTst"
    static let source = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// Writes the font into `folder` as `PdfgateTest.ttf` and answers its path.
    @discardableResult
    public static func write(into folder: String) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        for (old, new) in [("DejaVu Sans", family), ("DejaVuSans", postScriptName)] {
            precondition(old.count == new.count, "a name must keep its length")
            for encoding in [String.Encoding.ascii, .utf16BigEndian] {
                guard let from = old.data(using: encoding), let to = new.data(using: encoding) else { continue }
                var searchFrom = bytes.startIndex
                while let found = bytes.range(of: from, in: searchFrom..<bytes.endIndex) {
                    bytes.replaceSubrange(found, with: to)
                    searchFrom = found.upperBound
                }
            }
        }
        let path = folder + "/\(family).ttf"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }
}
