import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

/// Folder names are case-sensitive, so `A` and `a` are different folders. SQLite's `LIKE`
/// ignores ASCII case: subtree queries written with it reached into `a/…` when given `A`.
@Suite("Subtrees are matched exactly")
struct CaseSensitivePathTests {
    /// `A/x` holds one document; each neighbour that sorts or compares close to `A/` holds another.
    static let neighbours = ["a/y", "A-x/z", "A0/w"]

    struct Tree {
        let fixture: LibraryFixture
        let inA: Document
        let others: [Document]
    }

    func makeLibrary(_ backend: StoreBackend) async throws -> Tree {
        let fixture = try await LibraryFixture(backend)
        let inA = try await fixture.file(folder: .path("A/x"), name: "In A")
        var others: [Document] = []
        for path in Self.neighbours { others.append(try await fixture.file(folder: .path(path), name: "In " + path)) }
        return Tree(fixture: fixture, inA: inA, others: others)
    }

    /// The neighbours' folders, documents and files are exactly as filed, and fsck agrees.
    func expectNeighboursIntact(_ library: Tree) async throws {
        let fixture = library.fixture
        for document in library.others {
            let now = try await fixture.library.document(id: document.id, owner: "alice")
            #expect(now.relativePath == document.relativePath)
            #expect(fixture.exists(document.relativePath))
        }
        let folders = try await fixture.library.listFolders(owner: "alice", recursive: true).map(\.path)
        for path in Self.neighbours { #expect(folders.contains(path), "\(path) in \(folders)") }
        let report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test(arguments: StoreBackend.allCases) func renamingAFolderLeavesItsLookAlikesAlone(_ backend: StoreBackend) async throws {
        let library = try await makeLibrary(backend)
        try await library.fixture.library.updateFolder(.path("A"), owner: "alice", name: "Renamed")
        await #expect(try library.fixture.library.document(id: library.inA.id, owner: "alice").relativePath == "alice/Renamed/x/In A.pdf")
        try await expectNeighboursIntact(library)
    }

    @Test(arguments: StoreBackend.allCases) func movingAFolderLeavesItsLookAlikesAlone(_ backend: StoreBackend) async throws {
        let library = try await makeLibrary(backend)
        let destination = try await library.fixture.library.createFolder(path: "D", owner: "alice")
        try await library.fixture.library.updateFolder(.path("A"), owner: "alice", parent: .id(destination.id))
        await #expect(try library.fixture.library.document(id: library.inA.id, owner: "alice").relativePath == "alice/D/A/x/In A.pdf")
        try await expectNeighboursIntact(library)
    }

    @Test(arguments: StoreBackend.allCases) func recursiveListingsStayInsideTheFolder(_ backend: StoreBackend) async throws {
        let library = try await makeLibrary(backend)
        let documents = try await library.fixture.library.listDocuments(DocumentQuery(owner: "alice", folder: .path("A"), recursive: true))
        #expect(documents.documents.map(\.id) == [library.inA.id])
        let folders = try await library.fixture.library.listFolders(owner: "alice", parent: .path("A"), recursive: true)
        #expect(folders.map(\.path) == ["A/x"])
    }

    @Test(arguments: StoreBackend.allCases) func recursiveDeleteLeavesItsLookAlikesAlone(_ backend: StoreBackend) async throws {
        let library = try await makeLibrary(backend)
        try await library.fixture.library.deleteFolder(.path("A"), owner: "alice", recursive: true)
        await #expect(throws: LibraryError.self) { try await library.fixture.library.document(id: library.inA.id, owner: "alice") }
        try await expectNeighboursIntact(library)
    }
}
