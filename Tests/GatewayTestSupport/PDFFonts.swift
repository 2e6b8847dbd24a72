import Foundation

/// One font of a PDF as `pdffonts` lists it.
public struct PDFFont: Sendable, Equatable {
    /// The font's name without its subset tag (`AAAAAA+`); empty for Chromium's Type 3 fonts,
    /// which carry none.
    public let name: String
    /// `CID TrueType`, `Type 3`, `Type 1C`…
    public let type: String
    /// Whether the font program is in the file (`emb yes`): the reader's fonts play no part.
    public let embedded: Bool
}

extension PDFProbe {
    /// The fonts `pdffonts` finds on `pages` (all when nil) of the PDF at `path`.
    public static func fonts(_ path: String, pages: ClosedRange<Int>? = nil) async throws -> [PDFFont] {
        var arguments = [String]()
        if let pages { arguments += ["-f", String(pages.lowerBound), "-l", String(pages.upperBound)] }
        let result = try await run("pdffonts", arguments + [path])
        guard result.status == 0 else { throw PDFProbeError("pdffonts could not read \(path): \(result.stderr)") }
        return parseFonts(result.stdout)
    }

    /// `pdffonts`' table, cut at the columns its line of dashes marks (a name or a type may
    /// hold spaces: "CID Type 0C").
    static func parseFonts(_ table: String) -> [PDFFont] {
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        guard lines.count > 2 else { return [] }
        var columns: [Range<Int>] = []
        var start: Int?
        let dashes = lines[1]
        for index in 0...dashes.count {
            let byte = index < dashes.count ? dashes[index] : UInt8(ascii: " ")
            if byte == UInt8(ascii: "-"), start == nil { start = index }
            if byte != UInt8(ascii: "-"), let begun = start {
                columns.append(begun..<index)
                start = nil
            }
        }
        guard columns.count >= 4 else { return [] }
        func cell(_ line: [UInt8], _ column: Int) -> String {
            let range = columns[column]
            let end = column + 1 < columns.count ? columns[column + 1].lowerBound : line.count
            guard range.lowerBound < line.count else { return "" }
            return String(decoding: line[range.lowerBound..<min(end, line.count)], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        return lines.dropFirst(2).filter { !$0.isEmpty }.map { line in
            var name = cell(line, 0)
            if name == "[none]" { name = "" }
            if let plus = name.firstIndex(of: "+"), name.distance(from: name.startIndex, to: plus) == 6 {
                name = String(name[name.index(after: plus)...])
            }
            return PDFFont(name: name, type: cell(line, 1), embedded: cell(line, 3) == "yes")
        }
    }
}

/// A cross-check tool could not read a file.
public struct PDFProbeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
