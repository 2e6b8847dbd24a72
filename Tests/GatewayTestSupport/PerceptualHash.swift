import Foundation

/// A perceptual hash of a rendered page, as Paperless-ngx's tests compare thumbnails: the page
/// at low resolution in grey, shrunk to a grid, each cell compared with its right-hand
/// neighbour (a difference hash). Two renderings of the same layout differ in a few bits; a
/// moved line, a lost image or glyphs of another shape in many.
public struct PerceptualHash: Sendable, Equatable, CustomStringConvertible {
    /// One bit per cell, row by row.
    public let bits: [Bool]

    /// Cells across and down.
    public static let grid = 24

    /// The hash of a grey image (`width` × `height` bytes, 0 black to 255 white).
    public init(grey pixels: [UInt8], width: Int, height: Int) {
        let columns = Self.grid + 1
        let rows = Self.grid
        var cells = [Double](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                let x0 = column * width / columns
                let x1 = max(x0 + 1, (column + 1) * width / columns)
                let y0 = row * height / rows
                let y1 = max(y0 + 1, (row + 1) * height / rows)
                var sum = 0
                for y in y0..<min(y1, height) {
                    for x in x0..<min(x1, width) { sum += Int(pixels[y * width + x]) }
                }
                cells[row * columns + column] = Double(sum) / Double(max(1, (x1 - x0) * (y1 - y0)))
            }
        }
        var bits: [Bool] = []
        for row in 0..<rows {
            for column in 0..<Self.grid { bits.append(cells[row * columns + column] < cells[row * columns + column + 1]) }
        }
        self.bits = bits
    }

    /// How many bits differ: 0 for the same picture, about half for unrelated ones.
    public func distance(to other: PerceptualHash) -> Int {
        zip(bits, other.bits).filter { $0 != $1 }.count
    }

    public var description: String {
        stride(from: 0, to: bits.count, by: 4).map { start in
            let nibble = bits[start..<min(start + 4, bits.count)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
            return String(nibble, radix: 16)
        }.joined()
    }

    /// The hash of a PDF's first page, rendered by Poppler's `pdftoppm` in grey at `width` pixels.
    public static func ofFirstPage(_ pdf: String, width: Int = 200) async throws -> PerceptualHash {
        let prefix = FileManager.default.temporaryDirectory.path + "/pdfgate-phash-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: prefix + ".pgm") }
        let rendered = try await run(
            "pdftoppm",
            ["-f", "1", "-l", "1", "-gray", "-singlefile", "-scale-to-x", String(width), "-scale-to-y", "-1", pdf, prefix]
        )
        guard rendered.status == 0 else { throw PDFProbeError("pdftoppm could not render \(pdf): \(rendered.stderr)") }
        return try readPGM(prefix + ".pgm")
    }

    /// The hash of an image file: a binary PGM read directly, anything else (a PNG reference)
    /// turned into one by ImageMagick.
    public static func ofImage(_ path: String) async throws -> PerceptualHash {
        if path.hasSuffix(".pgm") { return try readPGM(path) }
        let converted = FileManager.default.temporaryDirectory.path + "/pdfgate-phash-\(UUID().uuidString.prefix(8)).pgm"
        defer { try? FileManager.default.removeItem(atPath: converted) }
        let result = try await run("convert", [path, "-colorspace", "Gray", "-depth", "8", converted])
        guard result.status == 0 else { throw PDFProbeError("ImageMagick could not read \(path): \(result.stderr)") }
        return try readPGM(converted)
    }

    /// A binary PGM (`P5`, 8 bits).
    private static func readPGM(_ pgm: String) throws -> PerceptualHash {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pgm)))
        var fields: [Int] = []
        var index = 2
        guard data.starts(with: Array("P5".utf8)) else { throw PDFProbeError("\(pgm) is not a binary PGM") }
        while fields.count < 3, index < data.count {
            while index < data.count, data[index] == UInt8(ascii: "#") || [9, 10, 13, 32].contains(data[index]) {
                if data[index] == UInt8(ascii: "#") { while index < data.count, data[index] != 10 { index += 1 } }
                index += 1
            }
            var number = 0
            while index < data.count, (48...57).contains(data[index]) {
                number = number * 10 + Int(data[index] - 48)
                index += 1
            }
            fields.append(number)
        }
        index += 1  // the one white-space byte before the pixels
        let (width, height) = (fields[0], fields[1])
        guard fields.count == 3, fields[2] < 256, data.count >= index + width * height else { throw PDFProbeError("\(pgm) is not an 8-bit PGM") }
        return PerceptualHash(grey: Array(data[index..<index + width * height]), width: width, height: height)
    }
}
