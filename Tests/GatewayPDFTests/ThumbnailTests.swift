import Foundation
import GatewayLibraryModel
import GatewayPDF
import Testing

@Suite(.timeLimit(.minutes(1))) struct ThumbnailTests {
    @Test(arguments: [200, 64])
    func writesPNGOfRequestedWidth(width: Int) async throws {
        let pool = makePool()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("thumb.png").path

        let info = try await pool.inspect(
            path: Fixtures.pdf("one-page.pdf"),
            thumbnail: ThumbnailRequest(outputPath: output, width: width)
        )

        let png = try #require(FileManager.default.contents(atPath: output))
        let (pngWidth, pngHeight) = try #require(Self.pngSize(png))
        #expect(pngWidth == width)
        let expectedHeight = (Double(width) * info.pageHeight / info.pageWidth).rounded()
        #expect(abs(Double(pngHeight) - expectedHeight) <= 1)
        // Written atomically: no temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["thumb.png"])
    }

    @Test func replacesAnExistingFile() async throws {
        let pool = makePool()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("thumb.png").path
        #expect(FileManager.default.createFile(atPath: output, contents: Data("old".utf8)))
        _ = try await pool.inspect(
            path: Fixtures.pdf("many-pages.pdf"),
            thumbnail: ThumbnailRequest(outputPath: output, width: 100)
        )
        let png = try #require(FileManager.default.contents(atPath: output))
        #expect(Self.pngSize(png)?.width == 100)
    }

    @Test func unwritableDestinationIsReported() async throws {
        let pool = makePool()
        let error = await inspectionError {
            try await pool.inspect(
                path: Fixtures.pdf("one-page.pdf"),
                thumbnail: ThumbnailRequest(outputPath: "/nonexistent-dir/thumb.png", width: 100)
            )
        }
        #expect(error?.kind == .inspectorUnavailable)
        #expect(error?.message.contains("/nonexistent-dir/thumb.png") == true)
    }

    /// Width and height from the IHDR chunk, which must directly follow the signature.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return (bigEndian(16), bigEndian(20))
    }
}
