import Foundation

/// Where a word sits on a PDF's first page it appears on, as Poppler's `pdftotext -bbox` reports
/// it: points from the page's top-left corner. Margins and layouts are checked with it.
public struct WordBox: Sendable, Equatable {
    public var xMin: Double
    public var yMin: Double

    /// The first occurrence of `word` in the PDF at `path`, or nil when Poppler finds none.
    public static func of(_ word: String, in path: String) async throws -> WordBox? {
        let boxes = try await run("/usr/bin/pdftotext", ["-bbox", path, "-"]).stdout
        guard let line = boxes.split(separator: "\n").first(where: { $0.contains(">\(word)<") }) else { return nil }
        func number(_ name: String) -> Double? {
            line.firstMatch(of: try! Regex("\(name)=\"([0-9.]+)\"")).flatMap { $0.output[1].substring }.flatMap { Double($0) }
        }
        guard let x = number("xMin"), let y = number("yMin") else { return nil }
        return WordBox(xMin: x, yMin: y)
    }
}
