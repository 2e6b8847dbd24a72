import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// What writes the change journal, on both databases: a write a client can see, once, and
/// nothing else; and the bulk path (`Library.seed`) as well as the one-document one.
@Suite("Change journal writes")
struct ChangeJournalWriteTests {
    @Test(arguments: StoreBackend.allCases) func aBookkeepingWriteIsNotAChange(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let catalog = fixture.library.catalog
        let id = try await fixture.file(name: "Draft").id.lowercased
        let filed = try #require(try await catalog.version(ofDocument: id))
        var row = try #require(try await catalog.document(id: id, owner: nil, readyOnly: false)).record

        // A rename's two writes, as `updateDocument` makes them: the intent, then clearing it.
        row.pathBefore = "alice/Draft.pdf"
        row.name = "Final"
        try await catalog.update(row)
        let renamed = try #require(try await catalog.version(ofDocument: id))
        #expect(renamed > filed, "the rename is a change")
        row.pathBefore = nil
        try await catalog.update(row)
        #expect(try await catalog.version(ofDocument: id) == renamed, "clearing path_before alone is bookkeeping")
        try await catalog.update(row)
        #expect(try await catalog.version(ofDocument: id) == renamed, "a write that changes nothing is no change")

        let page = try await fixture.library.changes(owner: "alice", since: nil, limit: 10)
        #expect(page.changes.map(\.summary) == ["document \(id.uppercased()) Final.pdf"])
    }

    @Test(arguments: StoreBackend.allCases) func seededDocumentsAreListedAndJournaled(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let info = try await fixture.inspector.inspect(path: Fixtures.pdf("one-page.pdf"))
        let count = 1_234  // more than one statement's worth of rows
        try await fixture.library.seed(owner: "alice", folderPath: "Big", count: count, template: Fixtures.pdf("one-page.pdf"), info: info)

        var query = DocumentQuery(owner: "alice", folder: .path("Big"), sort: DocumentSort(.name), limit: 500)
        var names: [String] = []
        repeat {
            let page = try await fixture.library.listDocuments(query)
            names += page.documents.map(\.name)
            query.cursor = page.nextCursor
        } while query.cursor != nil
        #expect(names == (0..<count).map { String(format: "Seeded %07d", $0) })

        var changes: [LibraryChange] = []
        var journal = try await fixture.library.changes(owner: "alice", since: nil, limit: 1_000)
        changes += journal.changes
        while journal.more {
            journal = try await fixture.library.changes(owner: "alice", since: journal.token, limit: 1_000)
            changes += journal.changes
        }
        let documents = changes.filter { $0.summary.hasPrefix("document ") }
        #expect(documents.count == count)
        #expect(Set(documents.map { String($0.summary.split(separator: " ", maxSplits: 2)[2]) }) == Set(names.map { "Big/\($0).pdf" }))
        let renamed = try await fixture.library.updateDocument(id: documents[0].id, owner: "alice", name: "Renamed")
        #expect(FileManager.default.fileExists(atPath: try await fixture.library.readableFile(of: renamed)))
    }
}
