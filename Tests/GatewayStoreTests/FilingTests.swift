import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

@Suite("Filing documents")
struct FilingTests {
    @Test(arguments: StoreBackend.allCases) func filesACopyWithItsFactsAndHash(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file("many-pages.pdf", folder: .path("Invoices/2026"), name: "March")

        #expect(document.relativePath == "alice/Invoices/2026/March.pdf")
        #expect(fixture.exists("alice/Invoices/2026/March.pdf"))
        #expect(FileManager.default.fileExists(atPath: Fixtures.pdf("many-pages.pdf")), "copy mode keeps the source")
        #expect(document.info.pageCount == (try await pdfinfoPageCount(Fixtures.pdf("many-pages.pdf"))))
        let shasum = try await run("sha256sum", [fixture.root + "/" + document.relativePath]).stdout.prefix(64)
        #expect(document.sha256 == String(shasum))
        #expect(document.size == Int64(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf"))).count))
        await #expect(try fixture.library.document(id: document.id, owner: "alice") == document)
    }

    /// Found by the kill test: a new owner's first filing into the root named by path ("" or "/")
    /// must create the owner's directory too.
    @Test(arguments: ["", "/"], StoreBackend.allCases)
    func aNewOwnersFirstFilingIntoTheRootByPath(_ root: String, _ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(owner: "newcomer", folder: .path(root), name: "First")
        #expect(document.relativePath == "newcomer/First.pdf")
        #expect(fixture.exists("newcomer/First.pdf"))
    }

    @Test(arguments: StoreBackend.allCases) func moveModeTakesTheSource(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let source = fixture.directory.file("incoming.pdf")
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: source)
        let info = try await fixture.inspector.inspect(path: source)
        let document = try await fixture.library.file(source, mode: .move, owner: "alice", info: info)
        #expect(document.name == "incoming")
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(fixture.exists("alice/incoming.pdf"))
    }

    @Test(arguments: StoreBackend.allCases) func nameClashFailsOrNumbers(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        try await fixture.file(name: "Report")
        await #expect(throws: LibraryError.self) { try await fixture.file(name: "Report") }
        do {
            try await fixture.file(name: "Report.pdf")
            Issue.record("a clash must fail by default")
        } catch let error as LibraryError {
            #expect(error.kind == .nameConflict)
            #expect(error.message.contains("Report"))
        }
        let second = try await fixture.file(name: "Report", conflict: .rename)
        let third = try await fixture.file(name: "Report", conflict: .rename)
        #expect(second.name == "Report 01")
        #expect(third.name == "Report 02")
        #expect(fixture.exists("alice/Report 02.pdf"))
    }

    @Test(arguments: StoreBackend.allCases) func sameIdFilesOnce(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let info = try await fixture.inspector.inspect(path: Fixtures.pdf("one-page.pdf"))
        let id = UUID()
        let first = try await fixture.library.file(Fixtures.pdf("one-page.pdf"), owner: "alice", name: "Once", info: info, id: id)
        let again = try await fixture.library.file(Fixtures.pdf("one-page.pdf"), owner: "alice", name: "Once", info: info, id: id)
        #expect(first == again)
        let page = try await fixture.library.listDocuments(DocumentQuery(owner: "alice"))
        #expect(page.documents.count == 1)
    }

    @Test(arguments: StoreBackend.allCases) func ownersNeverSeeEachOther(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(owner: "alice")
        await #expect(
            throws: LibraryError(
                .documentNotFound,
                "no document with id \(document.id.uuidString.lowercased()); list documents with `pdfgate ls` or GET /v1/documents"
            )
        ) {
            try await fixture.library.document(id: document.id, owner: "bob")
        }
        await #expect(try fixture.library.listDocuments(DocumentQuery(owner: "bob", recursive: true)).documents.isEmpty)
        await #expect(throws: LibraryError.self) { try await fixture.library.deleteDocument(id: document.id, owner: "bob") }
        #expect(fixture.exists(document.relativePath))
    }

    @Test(arguments: ["../evil", "a/../../b", ".", "/.."], StoreBackend.allCases)
    func pathsCannotEscape(_ path: String, _ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        await #expect(throws: LibraryError.self) { try await fixture.file(folder: .path(path)) }
        await #expect(throws: LibraryError.self) { try await fixture.library.createFolder(path: path, owner: "alice") }
    }

    @Test(arguments: StoreBackend.allCases) func invalidOwnerIsRefused(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        await #expect(throws: LibraryError.self) { try await fixture.file(owner: "../root") }
        await #expect(throws: LibraryError.self) { try await fixture.file(owner: ".pdfgate") }
    }
}
