import Foundation
import GRDB
import GatewayLibraryModel
import GatewayTestSupport
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

/// The hand-written row decoder and date parser behind every document read hold to what GRDB's
/// own `Codable` decoding and date parsing return.
@Suite("Row decoding")
struct RowDecodingTests {
    @Test("StoredDate reads GRDB's stored spelling back to a date that formats to the same text")
    func storedDateRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        let samples =
            (0..<2000).map { _ in Date(timeIntervalSince1970: Double.random(in: 0...4_102_444_800, using: &generator)) }
            + [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400.999), Date(timeIntervalSince1970: 1_795_403_108.938)]
        for date in samples {
            let stored = try #require(String.fromDatabaseValue(date.databaseValue))
            let parsed = try #require(StoredDate.parse(stored), "parses \(stored)")
            let grdb = try #require(Date.fromDatabaseValue(stored.databaseValue))
            #expect(String.fromDatabaseValue(parsed.databaseValue) == stored, "formats back to \(stored)")
            #expect(abs(parsed.timeIntervalSince(grdb)) < 0.000_01, "\(stored): ours \(parsed), GRDB's \(grdb)")
        }
        for other in ["2026-11-23", "2026-11-23 01:45:08", "2026-13-01 00:00:00.000", "2026-11-23T01:45:08.938", "x"] {
            #expect(StoredDate.parse(other) == nil, "\(other) is left to GRDB's parser")
        }
    }

    @Test("the positional document decoder returns what Codable decoding of the same row does")
    func positionalDecoderMatchesCodable() async throws {
        let fixture = try await LibraryFixture()
        let plain = try await fixture.file("no-metadata.pdf", folder: .path("A/B"))
        var info = try await fixture.inspector.inspect(path: Fixtures.pdf("one-page.pdf"))
        info.pdfa = "PDF/A-2b"  // pdfinfo does not read XMP; every optional column gets a value
        info.createdAt = Date(timeIntervalSince1970: 1_700_000_000.123)
        info.modifiedAt = Date(timeIntervalSince1970: 1_700_000_500.5)
        let full = try await fixture.library.file(
            Fixtures.pdf("one-page.pdf"),
            owner: "alice",
            folder: .root,
            name: "with \"quotes\" and metadata",
            info: info
        )
        for document in [plain, full] {
            let (positional, codable) = try Self.bothDecodings(of: document, in: fixture.library)
            let viaCodable = DocumentWithPath(record: codable, folderPath: positional.folderPath).document
            // Dates are compared to the microsecond (the parsers may differ in the last bits);
            // everything else exactly.
            var ours = positional.document
            for (mine, theirs) in [(ours.createdAt, viaCodable.createdAt), (ours.updatedAt, viaCodable.updatedAt)] {
                #expect(abs(mine.timeIntervalSince(theirs)) < 0.000_01)
            }
            for (mine, theirs) in [(ours.info.createdAt, viaCodable.info.createdAt), (ours.info.modifiedAt, viaCodable.info.modifiedAt)] {
                #expect((mine == nil) == (theirs == nil))
                if let mine, let theirs { #expect(abs(mine.timeIntervalSince(theirs)) < 0.000_01) }
            }
            ours.createdAt = viaCodable.createdAt
            ours.updatedAt = viaCodable.updatedAt
            ours.info.createdAt = viaCodable.info.createdAt
            ours.info.modifiedAt = viaCodable.info.modifiedAt
            #expect(ours == viaCodable)
            #expect(positional.record.state == codable.state)
            #expect(positional.record.pathBefore == codable.pathBefore && positional.record.stagedPath == codable.stagedPath)
        }
        #expect(full.info.pdfa != nil, "the fixture exercises a present PDF/A column")
        #expect(plain.folderPath == "A/B")
    }

    /// The same row read by the positional decoder and by `Codable` (a synchronous read: the
    /// async one wants `Sendable` records).
    static func bothDecodings(of document: Document, in library: Library) throws -> (DocumentWithPath, DocumentRecord) {
        try library.embeddedDatabase().pool.read { db in
            let id = document.id.lowercased
            let positional = try #require(
                try DocumentWithPath.fetchOne(db, sql: "SELECT \(DocumentWithPath.selection) WHERE documents.id = ?", arguments: [id])
            )
            return (positional, try #require(try DocumentRecord.fetchOne(db, key: id)))
        }
    }
}
