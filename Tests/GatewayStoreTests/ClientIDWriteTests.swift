import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// Writes under the client's own ids (`Library.putDocument`, `putFolder`) on both databases:
/// create or replace, idempotent, and guarded by versions.
@Suite("Writes under the client's ids")
struct ClientIDWriteTests {
    @Test(arguments: StoreBackend.allCases) func aDocumentIsCreatedThenReplacedOnlyOverTheVersionSeen(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let id = UUID()
        let first = try await put(fixture, id, "one-page.pdf", name: "Scan", precondition: .absent)
        #expect(first.created && first.item.id == id && first.item.name == "Scan")

        let again = try await put(fixture, id, "one-page.pdf", name: "Scan")
        #expect(!again.created && again.version == first.version, "the same write twice changes nothing")
        #expect(await kind { _ = try await put(fixture, id, "one-page.pdf", name: "Scan", precondition: .absent) } == .preconditionFailed)

        let replaced = try await put(fixture, id, "many-pages.pdf", name: nil, precondition: .version(first.version))
        #expect(replaced.item.id == id && replaced.item.name == "Scan" && replaced.version.sequence > first.version.sequence)
        #expect(replaced.item.info.pageCount > 1)

        // A device that still holds the first version loses nothing of the second.
        #expect(
            await kind { _ = try await put(fixture, id, "one-page.pdf", name: "Old", precondition: .version(first.version)) } == .preconditionFailed
        )
        let stored = try await fixture.library.document(id: id, owner: "alice")
        #expect(stored.name == "Scan" && stored.sha256 == replaced.item.sha256)
        #expect(try await fixture.library.version(ofDocument: id, owner: "alice") == replaced.version)
    }

    @Test(arguments: StoreBackend.allCases) func aPutRenamesAndMovesKeepingTheID(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let id = UUID()
        try await put(fixture, id, "one-page.pdf", name: "Draft")
        let folder = try await fixture.library.createFolder(path: "Done", owner: "alice")
        let moved = try await put(fixture, id, "one-page.pdf", name: "Final", folder: .id(folder.id))
        #expect(!moved.created && moved.item.id == id && moved.item.relativePath == "alice/Done/Final.pdf")
        #expect(fixture.exists("alice/Done/Final.pdf") && !fixture.exists("alice/Draft.pdf"))

        #expect(await kind { _ = try await put(fixture, UUID(), "one-page.pdf", name: "X", precondition: .exists) } == .preconditionFailed)
        let unnamed = UUID()
        #expect(try await put(fixture, unnamed, "one-page.pdf", name: nil).item.name == unnamed.lowercased, "named by its id")
        #expect(await kind { _ = try await put(fixture, id, "one-page.pdf", name: "Mine", owner: "bob") } == .idTaken)
        #expect(try await fixture.library.document(id: id, owner: "alice").name == "Final", "bob's attempt changed nothing")
    }

    @Test(arguments: StoreBackend.allCases) func foldersAreCreatedUnderTheirIDsAndFollowTheirPuts(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let (top, inner) = (UUID(), UUID())
        let created = try await fixture.library.putFolder(id: top, owner: "alice", name: "Receipts", parent: nil, precondition: .absent)
        #expect(created.created && created.item.id == top && created.item.path == "Receipts")
        let child = try await fixture.library.putFolder(id: inner, owner: "alice", name: "2026", parent: .id(top), precondition: .none)
        #expect(child.item.path == "Receipts/2026" && child.item.parentID == top)
        let same = try await fixture.library.putFolder(id: top, owner: "alice", name: "Receipts", parent: nil, precondition: .none)
        #expect(!same.created && same.version == created.version)

        let renamed = try await fixture.library.putFolder(
            id: top,
            owner: "alice",
            name: "Bills",
            parent: nil,
            precondition: .version(created.version)
        )
        #expect(renamed.item.path == "Bills" && renamed.version != created.version)
        #expect(try await fixture.library.folder(.id(inner), owner: "alice")?.path == "Bills/2026", "what is inside goes with it")
        #expect(fixture.exists("alice/Bills/2026"))

        #expect(
            await kind {
                _ = try await fixture.library.putFolder(id: top, owner: "alice", name: "Stale", parent: nil, precondition: .version(created.version))
            }
                == .preconditionFailed
        )
        #expect(
            await kind { _ = try await fixture.library.putFolder(id: UUID(), owner: "alice", name: "Bills", parent: nil, precondition: .none) }
                == .nameConflict
        )
        #expect(
            await kind { _ = try await fixture.library.putFolder(id: top, owner: "bob", name: "Bills", parent: nil, precondition: .none) } == .idTaken
        )
    }

    @Test(arguments: StoreBackend.allCases) func theChangeFeedShowsEachPutWithItsVersion(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let token = try await fixture.library.changes(owner: "alice", since: nil, limit: 10).token
        let written = try await put(fixture, UUID(), "one-page.pdf", name: "Backed up")
        let page = try await fixture.library.changes(owner: "alice", since: token, limit: 10)
        #expect(page.changes == [.document(written.item, written.version)])
    }

    /// Puts a copy of fixture `file` (the library takes the file it is given).
    @discardableResult
    private func put(
        _ fixture: LibraryFixture,
        _ id: UUID,
        _ file: String,
        name: String?,
        folder: FolderReference? = nil,
        owner: String = "alice",
        precondition: WritePrecondition = .none
    ) async throws -> PutResult<Document> {
        let copy = fixture.directory.path + "/upload-\(UUID().uuidString).pdf"
        try FileManager.default.copyItem(atPath: Fixtures.pdf(file), toPath: copy)
        let info = try await fixture.inspector.inspect(path: copy)
        return try await fixture.library.putDocument(
            id: id,
            owner: owner,
            source: copy,
            info: info,
            name: name,
            folder: folder,
            precondition: precondition
        )
    }

    private func kind(_ body: () async throws -> Void) async -> LibraryError.Kind? {
        do { try await body() } catch let error as LibraryError { return error.kind } catch { return nil }
        return nil
    }
}
