import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// One folder's changes (`Library.folderChanges`, behind WebDAV's sync-collection) on both
/// databases: the members that arrived or changed, and the names left empty since a token.
@Suite("Folder changes")
struct FolderChangesTests {
    @Test(arguments: StoreBackend.allCases) func renamesMovesAndDeletionsLeaveTheirOldNames(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let library = fixture.library
        let inbox = try await library.createFolder(path: "Inbox", owner: "alice")
        let elsewhere = try await library.createFolder(path: "Elsewhere", owner: "alice")
        let renamed = try await fixture.file(folder: .id(inbox.id), name: "Draft")
        let movedOut = try await fixture.file(folder: .id(inbox.id), name: "Leaving")
        let deleted = try await fixture.file(folder: .id(inbox.id), name: "Doomed")
        let untouched = try await fixture.file(folder: .id(inbox.id), name: "Untouched")
        let sub = try await library.createFolder(path: "Inbox/Sub", owner: "alice")
        let comingIn = try await fixture.file(folder: .id(elsewhere.id), name: "Arriving")
        _ = try await fixture.file(folder: .id(elsewhere.id), name: "Stays elsewhere")

        let everything = try await library.folderChanges(.id(inbox.id), owner: "alice", since: nil, limit: nil)
        #expect(
            Set(everything.changed.map(\.summary)) == [
                "document \(renamed.id) Inbox/Draft.pdf", "document \(movedOut.id) Inbox/Leaving.pdf",
                "document \(deleted.id) Inbox/Doomed.pdf", "document \(untouched.id) Inbox/Untouched.pdf", "folder \(sub.id) Inbox/Sub",
            ]
        )
        #expect(everything.departed.isEmpty && !everything.more)

        try await library.updateDocument(id: renamed.id, owner: "alice", name: "Final")
        try await library.updateDocument(id: movedOut.id, owner: "alice", folder: .id(elsewhere.id))
        try await library.deleteDocument(id: deleted.id, owner: "alice")
        try await library.updateDocument(id: comingIn.id, owner: "alice", folder: .id(inbox.id))
        _ = try await library.updateFolder(.id(sub.id), owner: "alice", name: "Renamed sub")

        let since = try await library.folderChanges(.id(inbox.id), owner: "alice", since: everything.token, limit: nil)
        #expect(
            Set(since.changed.map(\.summary)) == [
                "document \(renamed.id) Inbox/Final.pdf", "document \(comingIn.id) Inbox/Arriving.pdf", "folder \(sub.id) Inbox/Renamed sub",
            ]
        )
        #expect(Set(since.departed.map { "\($0.kind) \($0.name)" }) == ["document Draft", "document Leaving", "document Doomed", "folder Sub"])
        #expect(!since.more)

        // The other folder saw one leave and one arrive; the root saw nothing of its members.
        let other = try await library.folderChanges(.id(elsewhere.id), owner: "alice", since: everything.token, limit: nil)
        #expect(other.changed.map(\.summary) == ["document \(movedOut.id) Elsewhere/Leaving.pdf"])
        #expect(other.departed.map(\.name) == ["Arriving"])
        let root = try await library.folderChanges(.root, owner: "alice", since: everything.token, limit: nil)
        #expect(root.changed.isEmpty && root.departed.isEmpty)

        let nothing = try await library.folderChanges(.id(inbox.id), owner: "alice", since: since.token, limit: nil)
        #expect(nothing.changed.isEmpty && nothing.departed.isEmpty)
    }

    @Test(arguments: StoreBackend.allCases) func aNameLeftAndTakenAgainIsAChangeNotAGap(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let first = try await fixture.file(name: "Report")
        let token = try await fixture.library.changeToken(owner: "alice")
        try await fixture.library.deleteDocument(id: first.id, owner: "alice")
        let second = try await fixture.file(name: "Report")

        let changes = try await fixture.library.folderChanges(.root, owner: "alice", since: token, limit: nil)
        #expect(changes.changed.map(\.summary) == ["document \(second.id) Report.pdf"])
        #expect(changes.departed.isEmpty, "Report.pdf holds a document: it is changed, not gone")
    }

    @Test(arguments: StoreBackend.allCases) func aLimitCutsBetweenChangesAndTheRestFollows(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        var filed: [UUID] = []
        for index in 0..<7 { filed.append(try await fixture.file(name: "Page \(index)").id) }
        let token = try await fixture.library.changeToken(owner: "alice")
        for id in filed.prefix(3) { try await fixture.library.updateDocument(id: id, owner: "alice", name: "Renamed \(id)") }

        var seen: [String] = []
        var gone: [String] = []
        var position = token
        var rounds = 0
        repeat {
            let page = try await fixture.library.folderChanges(.root, owner: "alice", since: position, limit: 2)
            seen += page.changed.map(\.summary)
            gone += page.departed.map(\.name)
            position = page.token
            rounds += 1
            if !page.more { break }
        } while rounds < 10
        // Each rename is a departure and an arrival under one number, so a page of 2 holds one rename.
        #expect(rounds == 3)
        #expect(Set(seen) == Set(filed.prefix(3).map { "document \($0) Renamed \($0).pdf" }) && seen.count == 3)
        #expect(Set(gone) == ["Page 0", "Page 1", "Page 2"])
    }

    @Test(arguments: StoreBackend.allCases) func forgottenDeparturesExpireOlderTokens(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Before")
        let old = try await fixture.library.changeToken(owner: "alice")
        try await fixture.library.updateDocument(id: document.id, owner: "alice", name: "After")
        try await fixture.library.forgetChanges(olderThan: .zero)
        let result: LibraryError.Kind?
        do {
            _ = try await fixture.library.folderChanges(.root, owner: "alice", since: old, limit: nil)
            result = nil
        } catch { result = error.kind }
        #expect(result == .syncTokenExpired, "the rename's departure is forgotten, so the token cannot be served")
        let fresh = try await fixture.library.changeToken(owner: "alice")
        #expect(try await fixture.library.folderChanges(.root, owner: "alice", since: fresh, limit: nil).changed.isEmpty)
    }
}
