import Foundation
import GatewayPDF
import Testing

/// Real-world PDFs often carry padding or junk after their last `%%EOF` (a block-aligned
/// download, an appended signature). Poppler and `pdfinfo` open them, so inspection must too.
@Suite(.timeLimit(.minutes(1))) struct TrailingBytesTests {
    let pool = makePool(poolSize: 1)

    /// A fixture PDF followed by `trailer`, in a fresh temp directory.
    func padded(_ fixture: String, with trailer: Data) throws -> (directory: URL, path: String) {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("padded.pdf").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf(fixture))) + trailer
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
        return (directory, path)
    }

    @Test(arguments: ["one-page.pdf", "many-pages.pdf"])
    func zerosAfterTheLastEOFStillInspect(fixture: String) async throws {
        let (directory, path) = try padded(fixture, with: Data(count: 4096))
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try #require(Int(try pdfinfo(Fixtures.pdf(fixture))["Pages"] ?? ""))
        #expect(Int(try pdfinfo(path)["Pages"] ?? "") == expected, "pdfinfo opens the padded file")
        let info = try await pool.using { try await $0.inspect(path: path) }
        #expect(info.pageCount == expected)
    }

    @Test func textJunkAfterTheLastEOFStillInspects() async throws {
        let (directory, path) = try padded("one-page.pdf", with: Data(String(repeating: "junk appended by a mailer\n", count: 200).utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await pool.using { try await $0.inspect(path: path) }.pageCount == 1)
    }

    /// The truncated fixture has no `%%EOF` at all and Poppler cannot open it: still `damaged`,
    /// with the message that says why.
    @Test func aFileCutShortIsStillDamaged() async throws {
        let error = await inspectionError { try await pool.using { try await $0.inspect(path: Fixtures.pdf("truncated.pdf")) } }
        #expect(error?.kind == .damaged)
        #expect(error?.message.contains("%%EOF") == true, "\(error?.message ?? "no error")")
    }
}
