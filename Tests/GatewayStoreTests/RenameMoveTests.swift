import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

@Suite("Rename, move and delete")
struct RenameMoveTests {
    @Test(arguments: StoreBackend.allCases) func renameAndMoveKeepTheId(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Draft")
        let renamed = try await fixture.library.updateDocument(id: document.id, owner: "alice", name: "Final")
        #expect(renamed.id == document.id)
        #expect(fixture.exists("alice/Final.pdf") && !fixture.exists("alice/Draft.pdf"))

        let folder = try await fixture.library.createFolder(path: "Archive/2025", owner: "alice")
        let moved = try await fixture.library.updateDocument(id: document.id, owner: "alice", folder: .id(folder.id))
        #expect(moved.id == document.id)
        #expect(moved.relativePath == "alice/Archive/2025/Final.pdf")
        #expect(fixture.exists("alice/Archive/2025/Final.pdf") && !fixture.exists("alice/Final.pdf"))
        #expect(moved.createdAt == document.createdAt)
        #expect(moved.updatedAt >= document.updatedAt)
        await #expect(try fixture.library.document(id: document.id, owner: "alice").relativePath == moved.relativePath)
    }

    @Test(arguments: StoreBackend.allCases) func renameIntoATakenNameFailsOrNumbers(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        try await fixture.file(name: "A")
        let b = try await fixture.file(name: "B")
        await #expect(throws: LibraryError.self) { try await fixture.library.updateDocument(id: b.id, owner: "alice", name: "A") }
        #expect(fixture.exists("alice/B.pdf"), "a refused rename changes nothing")
        let renamed = try await fixture.library.updateDocument(id: b.id, owner: "alice", name: "A", conflict: .rename)
        #expect(renamed.name == "A 01")
    }

    @Test(arguments: StoreBackend.allCases) func moveReadsTheDocumentItsFolderAndTheNameTogether(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Report")
        try await fixture.file(folder: .path("Archive"), name: "Report")
        await #expect(throws: LibraryError.self, "the name is taken in the folder it moves to") {
            try await fixture.library.updateDocument(id: document.id, owner: "alice", folder: .path("Archive"))
        }
        #expect(fixture.exists("alice/Report.pdf"))
        let moved = try await fixture.library.updateDocument(id: document.id, owner: "alice", folder: .path("Archive"), conflict: .rename)
        #expect(moved.relativePath == "alice/Archive/Report 01.pdf")

        func kind(_ body: () async throws -> Void) async -> LibraryError.Kind? {
            do { try await body() } catch let error as LibraryError { return error.kind } catch { return nil }
            return nil
        }
        #expect(await kind { try await fixture.library.updateDocument(id: document.id, owner: "alice", folder: .path("Nowhere")) } == .folderNotFound)
        #expect(await kind { try await fixture.library.updateDocument(id: document.id, owner: "alice", folder: .id(UUID())) } == .folderNotFound)
        #expect(await kind { try await fixture.library.updateDocument(id: document.id, owner: "bob", name: "Mine") } == .documentNotFound)
        #expect(await kind { try await fixture.library.updateDocument(id: UUID(), owner: "alice", folder: .path("Nowhere")) } == .documentNotFound)
        let back = try await fixture.library.updateDocument(id: document.id, owner: "alice", name: "Report", folder: .root)
        #expect(back.relativePath == "alice/Report.pdf" && fixture.exists("alice/Report.pdf"))
    }

    @Test(arguments: StoreBackend.allCases) func renameOntoAStrangersFileIsRefusedAndUndone(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Mine")
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: fixture.root + "/alice/Theirs.pdf")
        await #expect(throws: LibraryError.self) { try await fixture.library.updateDocument(id: document.id, owner: "alice", name: "Theirs") }
        await #expect(try fixture.library.document(id: document.id, owner: "alice").name == "Mine")
        #expect(fixture.exists("alice/Mine.pdf"))
    }

    @Test(arguments: StoreBackend.allCases) func deleteRemovesRowAndFile(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Gone")
        try await fixture.library.deleteDocument(id: document.id, owner: "alice")
        #expect(!fixture.exists("alice/Gone.pdf"))
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: document.id, owner: "alice") }
    }

    @Test(arguments: StoreBackend.allCases) func folderRenameAndMoveCarryTheirContents(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let inner = try await fixture.file(folder: .path("Work/Clients/Acme"), name: "Contract")
        let clients = try await #require(try fixture.library.folder(.path("Work/Clients"), owner: "alice"))
        let renamed = try await fixture.library.updateFolder(.id(clients.id), owner: "alice", name: "Customers")
        #expect(renamed.id == clients.id && renamed.path == "Work/Customers")
        await #expect(try fixture.library.document(id: inner.id, owner: "alice").relativePath == "alice/Work/Customers/Acme/Contract.pdf")
        #expect(fixture.exists("alice/Work/Customers/Acme/Contract.pdf"))
        await #expect(try fixture.library.folder(.path("Work/Customers/Acme"), owner: "alice") != nil, "descendant paths follow")

        let moved = try await fixture.library.updateFolder(.id(clients.id), owner: "alice", parent: .root)
        #expect(moved.path == "Customers")
        #expect(fixture.exists("alice/Customers/Acme/Contract.pdf") && !fixture.exists("alice/Work/Customers"))

        let acme = try await #require(try fixture.library.folder(.path("Customers/Acme"), owner: "alice"))
        await #expect(throws: LibraryError.self) { try await fixture.library.updateFolder(.id(clients.id), owner: "alice", parent: .id(acme.id)) }
    }

    @Test(arguments: StoreBackend.allCases) func folderDeleteIsEmptyOnlyUnlessRecursive(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(folder: .path("Old/Stuff"))
        do {
            try await fixture.library.deleteFolder(.path("Old"), owner: "alice")
            Issue.record("deleting a non-empty folder must fail")
        } catch {
            #expect(error.kind == .folderNotEmpty)
        }
        try await fixture.library.deleteFolder(.path("Old"), owner: "alice", recursive: true)
        #expect(!fixture.exists("alice/Old"))
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: document.id, owner: "alice") }
        await #expect(try fixture.library.listFolders(owner: "alice", recursive: true).isEmpty)

        try await fixture.library.createFolder(path: "Empty", owner: "alice")
        try await fixture.library.deleteFolder(.path("Empty"), owner: "alice")
        #expect(!fixture.exists("alice/Empty"))
    }
}
