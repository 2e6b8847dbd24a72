import Foundation
import GatewayLibraryModel
import GatewayPDF
import Testing

/// Files that are not usable PDFs get the right kind and a message a person can act on.
@Suite(.timeLimit(.minutes(1))) struct BrokenFileTests {
    let pool = makePool()

    @Test(arguments: [
        ("not-a-pdf.pdf", InspectionError.Kind.notAPDF),
        ("empty.pdf", .notAPDF),
        ("truncated.pdf", .damaged),
        ("encrypted.pdf", .encrypted),
        ("does-not-exist.pdf", .unreadable),
    ])
    func kind(file: String, expected: InspectionError.Kind) async {
        let error = await inspectionError { try await pool.inspect(path: Fixtures.pdf(file)) }
        #expect(error?.kind == expected)
        #expect(error?.message.isEmpty == false)
        #expect(error?.message.contains(file) == true, "the message names the file")
    }

    @Test func encryptedMessageSaysHowToFixIt() async {
        let error = await inspectionError { try await pool.inspect(path: Fixtures.pdf("encrypted.pdf")) }
        #expect(error?.message.contains("qpdf --decrypt") == true)
    }

    @Test func truncatedMessageMentionsEOF() async {
        let error = await inspectionError { try await pool.inspect(path: Fixtures.pdf("truncated.pdf")) }
        #expect(error?.message.contains("%%EOF") == true)
    }

    @Test func emptyPasswordEncryptionOpensAndIsReported() async throws {
        let info = try await pool.inspect(path: Fixtures.pdf("encrypted-empty-user.pdf"))
        #expect(info.encrypted)
        #expect(info.pageCount > 0)
    }

    @Test func directoryIsUnreadable() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = await inspectionError { try await pool.inspect(path: directory.path) }
        #expect(error?.kind == .unreadable)
    }

    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] as [UInt8], "PNG"),
        (Array("PK\u{3}\u{4}rest of a zip".utf8), "ZIP"),
        (Array("<!DOCTYPE html><html><body>Sign in</body></html>".utf8), "HTML"),
        (Array("Dear reader,\nthis is text.\n".utf8), "plain text"),
    ])
    func notAPDFSaysWhatItLooksLike(bytes: [UInt8], described: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("upload.pdf").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let error = await inspectionError { try await pool.inspect(path: path) }
        #expect(error?.kind == .notAPDF)
        #expect(error?.message.contains(described) == true, "\(error?.message ?? "no error")")
    }
}
