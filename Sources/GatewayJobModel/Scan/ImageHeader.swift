import Foundation

/// What a page image says about itself in its first bytes: its format, its size in pixels (the
/// largest frame's, for a multi-page TIFF) and, for a JPEG, its EXIF orientation.
///
/// Read before any tool opens the file, so that a file that is no image, or one that claims
/// enormous dimensions (an image bomb: a few hundred bytes of PNG can declare 40,000 × 40,000
/// pixels), is refused with a clear reason instead of exhausting a decoder's memory. img2pdf
/// would embed such a JPEG as it is, and it would only explode later in Tesseract.
public struct ImageHeader: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, tiff, webp, heic
    }

    public var format: Format
    public var width: Int
    public var height: Int
    /// Frames in a TIFF (each becomes a page); 1 for every other format.
    public var frames: Int
    /// EXIF orientation 1–8 of a JPEG; nil when it has none.
    public var orientation: Int?
    /// Bits a sample of a PNG or TIFF (the deepest frame's); 8 for the other formats. Over 8 is
    /// more than img2pdf keeps.
    public var bitsPerSample: Int

    public init(format: Format, width: Int, height: Int, frames: Int = 1, orientation: Int? = nil, bitsPerSample: Int = 8) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.orientation = orientation
        self.bitsPerSample = bitsPerSample
    }

    /// Whether the orientation mirrors the image (2, 4, 5, 7): a PDF page can be turned
    /// (`/Rotate`) but not flipped, so such a JPEG's pixels must be turned over.
    public var isMirrored: Bool { [2, 4, 5, 7].contains(orientation ?? 1) }

    /// The largest side a page image may have, in pixels (a 300 dpi A0 poster is 14,000).
    public static let maxSide = 30_000
    /// The most pixels a page image may have: 150 megapixels, about 600 MB decoded as RGBA.
    public static let maxPixels = 150_000_000
    /// How much of a file the sniffer reads: HEIC's size box and a JPEG's frame header sit in
    /// the first kilobytes (after an ICC profile or an EXIF thumbnail, at most); a TIFF's
    /// directories may be anywhere, and are read from the file on their own.
    static let headLength = 2 * 1024 * 1024

    /// Reads the header of the file at `path`; `label` names the file in a refusal
    /// (`inputs[1] ('p2.jpg')`).
    public static func read(path: String, label: String) throws(JobFailure) -> ImageHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw JobFailure(.rejected, code: "not_an_image", "\(label) could not be read")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: headLength)) ?? Data()
        let header: ImageHeader
        do {
            header = try parse(head, rest: handle)
        } catch let problem {
            throw JobFailure(.rejected, code: problem.code, "\(label) \(problem.message)")
        }
        guard header.width > 0, header.height > 0 else {
            throw JobFailure(
                .rejected,
                code: "not_an_image",
                "\(label) is a \(header.format.rawValue.uppercased()) whose header gives no size; it is damaged"
            )
        }
        guard header.width <= maxSide, header.height <= maxSide, header.width * header.height <= maxPixels else {
            throw JobFailure(
                .rejected,
                code: "image_too_large",
                "\(label) is \(header.width) × \(header.height) pixels; a page image may have at most \(maxSide) pixels a side and \(maxPixels / 1_000_000) megapixels: scale it down (300 dpi is plenty for text)"
            )
        }
        return header
    }

    /// Why bytes are not a page image this gateway takes: a stable code and the rest of a
    /// sentence that starts with the file's name.
    struct Problem: Error {
        var code: String
        var message: String

        static func notAnImage(_ what: String) -> Problem {
            Problem(code: "not_an_image", message: "\(what); a scan takes JPEG, PNG, TIFF, WebP or HEIC page images")
        }
    }

    static func parse(_ head: Data, rest: FileHandle?) throws(Problem) -> ImageHeader {
        let bytes = [UInt8](head)
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return try JPEGHeader.parse(bytes) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 24, starts(Array("IHDR".utf8), at: 12) else { throw .notAnImage("is a PNG without its IHDR header; it is damaged") }
            let depth = bytes.count > 24 ? Int(bytes[24]) : 8
            return ImageHeader(format: .png, width: Int(ByteReader.big32(bytes, 16)), height: Int(ByteReader.big32(bytes, 20)), bitsPerSample: depth)
        }
        if starts(Array("II*\0".utf8)) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return try TIFFHeader.parse(bytes, rest: rest) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return try WebPHeader.parse(bytes) }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            guard ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) else {
                throw .notAnImage("is an ISO media file of brand '\(brand)', not a HEIC image")
            }
            return try HEICHeader.parse(bytes)
        }
        if starts(Array("%PDF".utf8)) { throw .notAnImage("is a PDF, not an image; convert or file it with a PDF_TO_PDF job") }
        if starts(Array("GIF8".utf8)) || starts(Array("BM".utf8)) {
            throw Problem(
                code: "unsupported_image_format",
                message: "is a \(starts(Array("GIF8".utf8)) ? "GIF" : "BMP") image, which a scan does not take; save it as PNG (lossless) or JPEG"
            )
        }
        throw .notAnImage("is not an image (its first bytes match no image format)")
    }
}

/// Big- and little-endian integers at an offset, 0 past the end (a short file then reads as
/// damaged rather than crashing).
enum ByteReader {
    static func big16(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1])
    }

    static func big32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        big16(bytes, at) << 16 | big16(bytes, at + 2)
    }

    static func little16(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8
    }

    static func little24(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 3 <= bytes.count else { return 0 }
        return little16(bytes, at) | UInt32(bytes[at + 2]) << 16
    }

    static func little32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        little16(bytes, at) | little16(bytes, at + 2) << 16
    }
}
