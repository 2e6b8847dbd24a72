import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

/// The page-image sniffer on images ImageMagick writes, and on crafted headers: a bomb, a lie,
/// a file that is no image. Nothing here decodes pixels.
@Suite("Page image headers")
struct ImageHeaderTests {
    /// An image ImageMagick makes from a small canvas, in the format `name`'s extension says.
    static func image(_ directory: TemporaryDirectory, _ name: String, _ arguments: [String] = []) async throws -> String {
        let path = directory.file(name)
        let made = try await run(
            try which("convert"),
            ["-size", "320x200", "xc:white", "-fill", "black", "-draw", "rectangle 20,20 120,80"] + arguments + [path]
        )
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test("JPEG, PNG, WebP and HEIC give their format and size")
    func formatsAndSizes() async throws {
        let directory = TemporaryDirectory()
        for (name, format) in [("a.jpg", ImageHeader.Format.jpeg), ("a.png", .png), ("a.webp", .webp), ("a.heic", .heic)] {
            let header = try ImageHeader.read(path: try await Self.image(directory, name), label: name)
            #expect(header.format == format && header.width == 320 && header.height == 200 && header.frames == 1, "\(name): \(header)")
        }
        // A lossless WebP has its own frame header.
        let lossless = try await Self.image(directory, "lossless.webp", ["-define", "webp:lossless=true"])
        #expect(try ImageHeader.read(path: lossless, label: "lossless").width == 320)
    }

    @Test("a TIFF counts its frames and reports the largest")
    func tiffFrames() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("multi.tif")
        let made = try await run(
            try which("convert"),
            ["-size", "100x50", "xc:white", "-size", "300x400", "xc:gray", "-size", "10x10", "xc:black", path]
        )
        #expect(made.status == 0, "\(made.stderr)")
        let header = try ImageHeader.read(path: path, label: "multi.tif")
        // ImageMagick's default depth: 16 bits a sample, which a scan re-draws at 8.
        #expect(header == ImageHeader(format: .tiff, width: 300, height: 400, frames: 3, bitsPerSample: 16))
        let shallow = directory.file("shallow.tif")
        #expect(try await run(try which("convert"), ["-size", "10x10", "xc:gray", "-depth", "8", shallow]).status == 0)
        #expect(try ImageHeader.read(path: shallow, label: "shallow.tif").bitsPerSample == 8)
    }

    @Test("a JPEG's EXIF orientation is read, and mirrored ones are told apart")
    func exifOrientation() async throws {
        let directory = TemporaryDirectory()
        let path = try await Self.image(directory, "turned.jpg")
        for (value, mirrored) in [(6, false), (3, false), (5, true), (2, true)] {
            let tagged = try await run(try which("exiftool"), ["-overwrite_original", "-n", "-Orientation=\(value)", path])
            #expect(tagged.status == 0, "\(tagged.stderr)")
            let header = try ImageHeader.read(path: path, label: "turned.jpg")
            #expect(header.orientation == value)
            #expect(header.isMirrored == mirrored)
        }
    }

    @Test("a PNG claiming 40,000 × 40,000 pixels is image_too_large before anything decodes it")
    func bombIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("bomb.png")
        try Self.pngHeader(width: 40_000, height: 40_000).write(to: URL(fileURLWithPath: path))
        let refusal = #expect(throws: JobFailure.self) { try ImageHeader.read(path: path, label: "'bomb.png'") }
        #expect(refusal?.code == "image_too_large")
        #expect(refusal?.message.contains("40000 × 40000") == true)
        #expect(refusal?.message.hasPrefix("'bomb.png'") == true)
        // Sides within the limit, too many pixels all the same: 20,000 × 20,000 is 400 MP.
        try Self.pngHeader(width: 20_000, height: 20_000).write(to: URL(fileURLWithPath: path))
        #expect(throws: JobFailure.self) { try ImageHeader.read(path: path, label: "b") }
        // An absurd 32-bit size does not overflow the arithmetic.
        try Self.pngHeader(width: UInt32.max, height: UInt32.max).write(to: URL(fileURLWithPath: path))
        #expect(throws: JobFailure.self) { try ImageHeader.read(path: path, label: "b") }
    }

    @Test("what is no image is named for what it is, with a stable code")
    func notImages() throws {
        let directory = TemporaryDirectory()
        let cases: [(Data, String, String)] = [
            (Data("%PDF-1.7\n".utf8), "not_an_image", "is a PDF"),
            (Data("GIF89a....".utf8), "unsupported_image_format", "GIF"),
            (Data("hello, this is text\n".utf8), "not_an_image", "is not an image"),
            (Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x04, 0x00, 0x00]), "not_an_image", "no frame header"),
            (Data(), "not_an_image", "is not an image"),
        ]
        for (index, (bytes, code, phrase)) in cases.enumerated() {
            let path = directory.file("input-\(index)")
            try bytes.write(to: URL(fileURLWithPath: path))
            let refusal = #expect(throws: JobFailure.self) { try ImageHeader.read(path: path, label: "inputs[\(index)]") }
            #expect(refusal?.code == code, "\(index): \(refusal?.message ?? "")")
            #expect(refusal?.message.contains(phrase) == true, "\(index): \(refusal?.message ?? "")")
        }
    }

    /// A PNG signature and IHDR chunk, with no image data after it.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        bytes += [8, 2, 0, 0, 0, 0, 0, 0, 0]
        return Data(bytes)
    }
}
