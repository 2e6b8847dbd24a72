import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

@Suite("fsck")
struct FsckTests {
    @Test(arguments: StoreBackend.allCases) func aConsistentLibraryHasNothingToReport(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        try await fixture.file(folder: .path("A/B"))
        try await fixture.file("many-pages.pdf")
        let report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty)
        #expect(report.documentsChecked == 2 && report.foldersChecked == 2)
    }

    @Test(arguments: StoreBackend.allCases) func findsAndRepairsDrift(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let kept = try await fixture.file(name: "Kept")
        let lost = try await fixture.file(name: "Lost")
        let changed = try await fixture.file(name: "Changed")
        try FileManager.default.removeItem(atPath: fixture.root + "/" + lost.relativePath)
        try FileManager.default.removeItem(atPath: fixture.root + "/" + changed.relativePath)
        try FileManager.default.copyItem(atPath: Fixtures.pdf("many-pages.pdf"), toPath: fixture.root + "/" + changed.relativePath)
        try FileManager.default.createDirectory(atPath: fixture.root + "/alice/Dropped/Inner", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.pdf("linearized.pdf"), toPath: fixture.root + "/alice/Dropped/Inner/Scan.pdf")
        try FileManager.default.copyItem(atPath: Fixtures.pdf("not-a-pdf.pdf"), toPath: fixture.root + "/alice/Bogus.pdf")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: fixture.root + "/alice/notes.txt"))

        let found = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        let kinds = Dictionary(grouping: found.issues, by: \.kind).mapValues(\.count)
        #expect(kinds[.missingFile] == 1)
        #expect(kinds[.contentDrift] == 1)
        #expect(kinds[.untrackedFolder] == 2)
        #expect(kinds[.untrackedFile] == 1)  // Scan.pdf; Bogus.pdf is inspected and found foreign
        #expect(kinds[.foreignFile] == 2)
        #expect(found.issues.allSatisfy { !$0.repaired })

        let repaired = try await fixture.library.fsck(repair: true, inspector: fixture.inspector)
        #expect(repaired.issues.contains { $0.kind == .foreignFile && $0.path == "alice/Bogus.pdf" && !$0.repaired })

        let after = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(after.issues.map(\.kind).sorted(by: { $0.rawValue < $1.rawValue }) == [.foreignFile, .foreignFile], "only the two non-PDFs remain")
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: lost.id, owner: "alice") }
        await #expect(try fixture.library.document(id: changed.id, owner: "alice").info.pageCount == 12)
        await #expect(try fixture.library.document(id: kept.id, owner: "alice").name == "Kept")
        let adopted = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", folder: .path("Dropped/Inner")))
        #expect(adopted.documents.map(\.name) == ["Scan"])
        #expect(adopted.documents.first?.info.pageCount == (try await pdfinfoPageCount(Fixtures.pdf("linearized.pdf"))))
    }
}
