import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

/// Two openings of one library (two processes on SQLite, two nodes on PostgreSQL) mutating the
/// same folder at once: the rows decide, the disk follows, and fsck finds nothing.
@Suite("Library mutations racing from two processes or nodes")
struct LibraryRaceTests {
    @Test(arguments: StoreBackend.allCases)
    func renamesIntoOneFolderAndMovesRacingDeletes(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let other = try await fixture.reopen()
        let info = try await fixture.inspector.inspect(path: Fixtures.pdf("one-page.pdf"))
        var documents: [Document] = []
        for i in 0..<16 {
            await documents.append(
                try fixture.library.file(Fixtures.pdf("one-page.pdf"), owner: "alice", folder: .path("In"), name: "doc \(i)", info: info)
            )
        }
        let libraries = [fixture.library, other]
        try await fixture.library.createFolder(path: "Out", owner: "alice")
        try await other.createFolder(path: "Elsewhere", owner: "alice")

        // Every document renamed to the same name in the same new folder, from both sides at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, document) in documents.enumerated() {
                let library = libraries[index % 2]
                group.addTask {
                    _ = try await library.updateDocument(id: document.id, owner: "alice", name: "Same", folder: .path("Out"), conflict: .rename)
                }
            }
            try await group.waitForAll()
        }
        let names = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", folder: .path("Out"), limit: 100)).documents.map(\.name)
        #expect(names.count == 16 && Set(names).count == 16, "one name each: \(names)")

        // Moves racing deletes of the same documents: each ends moved-then-deleted or deleted,
        // never a row without a file or a file without a row.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for document in documents {
                group.addTask {
                    _ = try? await other.updateDocument(id: document.id, owner: "alice", folder: .path("Elsewhere"))
                }
                group.addTask {
                    try? await fixture.library.deleteDocument(id: document.id, owner: "alice")
                }
            }
            try await group.waitForAll()
        }
        let left = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, limit: 100)).documents
        #expect(left.isEmpty, "every document was deleted, moved first or not: \(left.map(\.relativePath))")
        let report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }
}
