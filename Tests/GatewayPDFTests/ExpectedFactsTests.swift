import Foundation
import GatewayPDF
import Testing

/// Every fixture in Fixtures/expected.json, through the real worker, checked against the facts
/// recorded there and against poppler-utils' own `pdfinfo` on the same file.
@Suite(.timeLimit(.minutes(1))) struct ExpectedFactsTests {
    static let pool = makePool()

    /// "pdf/one-page.pdf" → its recorded facts, as loosely typed JSON.
    static func expected() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: Fixtures.expectedJSON)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    }

    static let fixtureNames: [String] = ((try? expected().keys.sorted()) ?? []).filter { $0.hasPrefix("pdf/") }

    @Test func everyPDFFixtureHasExpectations() {
        #expect(Self.fixtureNames.count >= 7)
    }

    @Test(arguments: fixtureNames)
    func factsMatchExpectedJSON(name: String) async throws {
        let facts = try #require(try Self.expected()[name])
        let path = Fixtures.root.appendingPathComponent(name).path

        guard facts["page_count"] is Int else {
            // Recorded as unopenable without a password.
            let error = await inspectionError { try await Self.pool.inspect(path: path) }
            #expect(error?.kind == .encrypted, "\(name)")
            #expect(error?.message.isEmpty == false)
            return
        }
        let info = try await Self.pool.inspect(path: path)

        #expect(info.pageCount == facts["page_count"] as? Int, "\(name)")
        for (key, value) in [
            ("title", info.title), ("author", info.author), ("subject", info.subject),
            ("keywords", info.keywords), ("creator", info.creator), ("producer", info.producer),
            ("pdf_version", info.pdfVersion), ("pdfa", info.pdfa),
        ] where facts.keys.contains(key) {
            #expect(value == facts[key] as? String, "\(name): \(key)")
        }
        for (key, value) in [("encrypted", info.encrypted), ("linearized", info.linearized)] where facts.keys.contains(key) {
            #expect(value == facts[key] as? Bool, "\(name): \(key)")
        }
        for (key, value) in [("page_width", info.pageWidth), ("page_height", info.pageHeight)] {
            let expected = try #require(facts[key] as? Double, "\(name): \(key)")
            // Recorded to two decimals.
            #expect(abs(value - expected) < 0.006, "\(name): \(key) \(value) vs \(expected)")
        }
        for (key, value) in [("creation_date", info.createdAt), ("mod_date", info.modifiedAt)] where facts.keys.contains(key) {
            let expected = (facts[key] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(value == expected, "\(name): \(key)")
        }
    }

    @Test(arguments: fixtureNames)
    func factsMatchPdfinfo(name: String) async throws {
        let path = Fixtures.root.appendingPathComponent(name).path
        let reference = try pdfinfo(path)
        guard let pages = reference["Pages"].flatMap(Int.init) else {
            // pdfinfo could not open it either (a password is needed).
            let error = await inspectionError { try await Self.pool.inspect(path: path) }
            #expect(error?.kind == .encrypted, "\(name)")
            return
        }
        let info = try await Self.pool.inspect(path: path)
        #expect(info.pageCount == pages, "\(name)")
        #expect(info.encrypted == reference["Encrypted"]?.hasPrefix("yes"), "\(name)")
        #expect(info.linearized == (reference["Optimized"] == "yes"), "\(name)")
        #expect(info.pdfVersion == reference["PDF version"], "\(name)")
        #expect(reference["Title"] == info.title, "\(name)")
        // "595.276 x 841.89 pts (A4)": six significant digits.
        let size = try #require(reference["Page size"]?.split(separator: " "), "\(name)")
        let width = try #require(size.first.flatMap { Double($0) }, "\(name)")
        let height = try #require(size.dropFirst(2).first.flatMap { Double($0) }, "\(name)")
        #expect(abs(info.pageWidth - width) < 0.001, "\(name)")
        #expect(abs(info.pageHeight - height) < 0.001, "\(name)")
    }

    @Test func encryptedOpensWithItsPasswordInPdfinfoOnly() throws {
        // The gateway never takes passwords; this pins the fixture so the .encrypted test means something.
        let reference = try pdfinfo(Fixtures.pdf("encrypted.pdf"), password: "secret")
        #expect(reference["Pages"] == "2")
        #expect(try pdfinfo(Fixtures.pdf("encrypted.pdf"))["Pages"] == nil)
    }
}
