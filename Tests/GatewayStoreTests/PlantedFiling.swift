import Foundation
import GatewayLibraryModel
import GatewayTestSupport
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

extension LibraryFixture {
    /// Leaves a `filing` row as a crash mid-filing would: recording the facts of `source`, with
    /// `staged` bytes (if any) at its staged path. Returns the row.
    @discardableResult
    func plantFiling(name: String, recording source: String, staged: Data?) throws -> DocumentRecord {
        let (sha256, size) = try FileOps.digest(source)
        var record = DocumentRecord(
            id: UUID(),
            owner: "alice",
            folderID: "",
            name: name,
            size: size,
            sha256: sha256,
            info: PDFInfo(pageCount: 1, pdfVersion: "1.4", pageWidth: 595, pageHeight: 842),
            state: .filing,
            now: Date()
        )
        record.stagedPath = library.paths.filing + "/" + record.id + ".pdf"
        try library.embeddedDatabase().pool.write { [record] db in try record.insert(db) }
        if let staged { #expect(FileManager.default.createFile(atPath: record.stagedPath!, contents: staged)) }
        return record
    }

    /// Puts a copy of a fixture PDF at `relative`, as a user dropping a file in by hand.
    func drop(_ fixture: String, at relative: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.pdf(fixture), toPath: path)
    }

    func bytes(_ relative: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)) }
}

func fixtureBytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf(name))) }
