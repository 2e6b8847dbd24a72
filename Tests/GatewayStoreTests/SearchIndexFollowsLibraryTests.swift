import Foundation
import GatewayLibraryModel
import GatewaySearchText
import GatewayStore
import GatewayTestSupport
import Testing

/// Each catalog keeps its search index in step in its own transactions: what the library
/// files, renames, moves and deletes, the index follows, with no call of its own.
@Suite("The catalog keeps the search index in step")
struct SearchIndexFollowsLibraryTests {
    @Test(arguments: SearchIndexBackend.allCases)
    func filingRenamingMovingAndDeletingAreFollowed(_ backend: SearchIndexBackend) async throws {
        let fixture = try await backend.make()
        let library = fixture.library.library
        // Filed: an entry, its text pending until it is read; found by its name meanwhile.
        let document = try await fixture.library.file(SearchFixture.pdf, owner: "alice", name: "Quarterly invoice")
        #expect(try await fixture.index.status(owner: "alice") == SearchIndexStatus(pending: 1, ready: 0, failed: 0))
        #expect(try await fixture.names("invoice") == ["Quarterly invoice"])

        try await library.updateDocument(id: document.id, owner: "alice", name: "Annual receipt")
        #expect(try await fixture.names("invoice").isEmpty)
        #expect(try await fixture.names("receipt") == ["Annual receipt"])

        let folder = try await library.createFolder(path: "Archive/2026", owner: "alice")
        try await library.updateDocument(id: document.id, owner: "alice", folder: .id(folder.id))
        #expect(try await fixture.names("receipt", folder: folder) == ["Annual receipt"])
        // The folder moves: the document is under its new parent, and no longer under the old one.
        let other = try await library.createFolder(path: "Old", owner: "alice")
        let archive = try #require(try await library.folder(.path("Archive"), owner: "alice"))
        try await library.updateFolder(.id(folder.id), owner: "alice", parent: .id(other.id))
        #expect(try await fixture.names("receipt", folder: other) == ["Annual receipt"])
        #expect(try await fixture.names("receipt", folder: archive).isEmpty)

        // A tree's delete takes its documents' entries with it.
        let doomed = try await library.createFolder(path: "Doomed/Deep", owner: "alice")
        try await fixture.library.file(SearchFixture.pdf, owner: "alice", folder: .id(doomed.id), name: "Doomed receipt")
        #expect(try await fixture.names("receipt") == ["Annual receipt", "Doomed receipt"])
        try await library.deleteFolder(.path("Doomed"), owner: "alice", recursive: true)
        #expect(try await fixture.names("receipt") == ["Annual receipt"])

        try await library.deleteDocument(id: document.id, owner: "alice")
        #expect(try await fixture.names("receipt").isEmpty)
        #expect(try await fixture.index.status(owner: "alice") == SearchIndexStatus(pending: 0, ready: 0, failed: 0))
        #expect(try await fixture.index.check(verifyFullText: true).isEmpty)
    }

    /// A document whose text was read: a rename and a move in one update keep the body's words
    /// and follow with the name's and the scope; a new file makes the text pending again, and
    /// the old file's words find it no more.
    @Test(arguments: SearchIndexBackend.allCases)
    func readTextFollowsRenamesAndGoesWithANewFile(_ backend: SearchIndexBackend) async throws {
        let fixture = try await backend.make()
        let library = fixture.library.library
        let document = try await fixture.library.file(SearchFixture.pdf, owner: "alice", name: "Quarterly invoice")
        let text = SearchContent.text(DocumentText(pages: ["the zeppelin contract"]), source: .pdf)
        #expect(try await fixture.index.writeText(documentID: document.id.lowercased, sha256: document.sha256, content: text))
        #expect(try await fixture.index.status(owner: "alice") == SearchIndexStatus(pending: 0, ready: 1, failed: 0))

        let archive = try await library.createFolder(path: "Archive", owner: "alice")
        try await library.updateDocument(id: document.id, owner: "alice", name: "Annual receipt", folder: .id(archive.id))
        #expect(try await fixture.names("zeppelin", folder: archive) == ["Annual receipt"])
        #expect(try await fixture.names("receipt", folder: archive) == ["Annual receipt"])
        #expect(try await fixture.names("invoice").isEmpty)
        #expect(try await fixture.index.status(owner: "alice") == SearchIndexStatus(pending: 0, ready: 1, failed: 0))

        let replacement = fixture.library.directory.path + "/replacement.pdf"
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: replacement)
        let info = try await fixture.library.inspector.inspect(path: replacement)
        let replaced = try await library.replaceDocumentContent(id: document.id, owner: "alice", with: replacement, info: info)
        #expect(replaced.sha256 != document.sha256)
        #expect(try await fixture.index.status(owner: "alice") == SearchIndexStatus(pending: 1, ready: 0, failed: 0))
        #expect(try await fixture.names("zeppelin").isEmpty)
        #expect(try await fixture.names("receipt", folder: archive) == ["Annual receipt"])
        #expect(try await fixture.index.check(verifyFullText: true).isEmpty)
    }
}
