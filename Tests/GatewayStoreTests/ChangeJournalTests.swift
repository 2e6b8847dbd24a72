import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// The change journal (`Library.changes`) on both databases: what a syncing client reads.
@Suite("Change journal")
struct ChangeJournalTests {
    @Test(arguments: StoreBackend.allCases) func withoutATokenTheWholeLibraryIsRead(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let folder = try await fixture.library.createFolder(path: "Invoices/2026", owner: "alice")
        let first = try await fixture.file(folder: .id(folder.id), name: "March")
        let second = try await fixture.file(name: "Notes")
        let gone = try await fixture.file(name: "Gone")
        try await fixture.library.deleteDocument(id: gone.id, owner: "alice")

        let page = try await fixture.library.changes(owner: "alice", since: nil, limit: 100)
        #expect(!page.more)
        let invoices = try #require(try await fixture.library.folder(.path("Invoices"), owner: "alice"))
        #expect(
            Set(page.changes.map(\.summary)) == [
                "folder \(invoices.id) Invoices", "folder \(folder.id) Invoices/2026", "document \(first.id) Invoices/2026/March.pdf",
                "document \(second.id) Notes.pdf",
            ]
        )
        let parentFirst = page.changes.firstIndex { $0.summary.hasSuffix(" Invoices") }!
        let childAfter = page.changes.firstIndex { $0.summary.hasSuffix(" Invoices/2026") }!
        #expect(parentFirst < childAfter, "a folder comes before the folders made in it")

        let nothing = try await fixture.library.changes(owner: "alice", since: page.token, limit: 100)
        #expect(nothing.changes.isEmpty && !nothing.more)
        #expect(nothing.token == page.token, "no change, same position")
    }

    @Test(arguments: StoreBackend.allCases) func aTokenReadsEachChangedItemOnceAsItIsNow(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let kept = try await fixture.file(name: "Draft")
        let doomed = try await fixture.file(name: "Doomed")
        let untouched = try await fixture.file(name: "Untouched")
        let archive = try await fixture.library.createFolder(path: "Archive/Old", owner: "alice")
        let start = try await fixture.library.changes(owner: "alice", since: nil, limit: 100).token

        try await fixture.library.updateDocument(id: kept.id, owner: "alice", name: "Final")
        try await fixture.library.updateDocument(id: kept.id, owner: "alice", folder: .id(archive.id))
        try await fixture.library.deleteDocument(id: doomed.id, owner: "alice")
        let renamed = try await fixture.library.updateFolder(.path("Archive"), owner: "alice", name: "Attic")

        let page = try await fixture.library.changes(owner: "alice", since: start, limit: 100)
        let summaries = page.changes.map(\.summary)
        #expect(summaries.count == Set(summaries).count, "each item once: \(summaries)")
        #expect(
            Set(summaries) == [
                "document \(kept.id) Attic/Old/Final.pdf", "deleted document \(doomed.id)", "folder \(renamed.id) Attic",
                "folder \(archive.id) Attic/Old",
            ]
        )
        #expect(!summaries.contains { $0.contains(untouched.id.uuidString) })
        // Oldest change first: the document's last change (its move) came before the folder's rename.
        #expect(summaries.firstIndex(of: "deleted document \(doomed.id)")! < summaries.firstIndex(of: "folder \(renamed.id) Attic")!)
    }

    @Test(arguments: StoreBackend.allCases) func aRecursiveDeleteLeavesATombstoneForEverythingInIt(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let top = try await fixture.library.createFolder(path: "Trip", owner: "alice")
        let inner = try await fixture.library.createFolder(path: "Trip/Photos", owner: "alice")
        let a = try await fixture.file(folder: .id(top.id), name: "Tickets")
        let b = try await fixture.file(folder: .id(inner.id), name: "Scan")
        let start = try await fixture.library.changes(owner: "alice", since: nil, limit: 100).token
        try await fixture.library.deleteFolder(.id(top.id), owner: "alice", recursive: true)

        let page = try await fixture.library.changes(owner: "alice", since: start, limit: 100)
        #expect(
            Set(page.changes.map(\.summary)) == [
                "deleted folder \(top.id)", "deleted folder \(inner.id)", "deleted document \(a.id)", "deleted document \(b.id)",
            ]
        )
    }

    @Test(arguments: StoreBackend.allCases) func pagesFollowEachOtherWithoutGapsOrRepeats(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        var filed: Set<UUID> = []
        for index in 0..<23 { filed.insert(try await fixture.file(name: "Page \(index)").id) }
        try await fixture.file(owner: "bob", name: "Not Alice's")

        var seen: [UUID] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try await fixture.library.changes(owner: "alice", since: token, limit: 10)
            seen += page.changes.map(\.id)
            token = page.token
            pages += 1
            if !page.more { break }
        } while pages < 10
        #expect(pages == 3)
        #expect(seen.count == 23 && Set(seen) == filed, "every document once, none of bob's")
    }

    @Test(arguments: StoreBackend.allCases) func aTokenOlderThanTheHistoryKeptHasExpired(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let doomed = try await fixture.file(name: "Doomed")
        let old = try await fixture.library.changes(owner: "alice", since: nil, limit: 100).token
        try await fixture.library.deleteDocument(id: doomed.id, owner: "alice")
        let beforeForgetting = try await fixture.library.changes(owner: "alice", since: nil, limit: 100).token

        #expect(try await fixture.library.forgetChanges(olderThan: .seconds(3600)) == 0, "a deletion of now is kept")
        #expect(try await fixture.library.forgetChanges(olderThan: .zero) == 1)
        #expect(await errorKind { _ = try await fixture.library.changes(owner: "alice", since: old, limit: 100) } == .syncTokenExpired)
        // A token issued after the deletion did not need it.
        #expect(try await fixture.library.changes(owner: "alice", since: beforeForgetting, limit: 100).changes.isEmpty)
        let fresh = try await fixture.library.changes(owner: "alice", since: nil, limit: 100)
        #expect(fresh.changes.isEmpty)
        #expect(try await fixture.library.changes(owner: "alice", since: fresh.token, limit: 100).changes.isEmpty)
    }

    @Test(arguments: StoreBackend.allCases) func tokensOfAnotherJournalOrNoneAtAllAreRefused(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let other = try await LibraryFixture(backend)
        let foreign = try await other.library.changes(owner: "alice", since: nil, limit: 1).token
        #expect(await errorKind { _ = try await fixture.library.changes(owner: "alice", since: foreign, limit: 1) } == .invalidSyncToken)
        #expect(await errorKind { _ = try await fixture.library.changes(owner: "alice", since: "not-a-token", limit: 1) } == .invalidSyncToken)
        #expect(await errorKind { _ = try await fixture.library.changes(owner: "alice", since: nil, limit: 0) } == .invalidArgument)
    }

    @Test(arguments: StoreBackend.allCases) func anotherNodeReadsOnFromTheSameToken(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Before")
        let token = try await fixture.library.changes(owner: "alice", since: nil, limit: 100).token
        try await fixture.reopen().updateDocument(id: document.id, owner: "alice", name: "After")
        let page = try await fixture.reopen().changes(owner: "alice", since: token, limit: 100)
        #expect(page.changes.map(\.summary) == ["document \(document.id) After.pdf"])
    }
}

/// The kind of library error `body` throws, nil when it throws none.
private func errorKind(_ body: () async throws -> Void) async -> LibraryError.Kind? {
    do { try await body() } catch let error as LibraryError { return error.kind } catch { return nil }
    return nil
}

extension LibraryChange {
    /// What a test compares: kind, id and where the item is now.
    var summary: String {
        switch self {
        case .document(let document, _): "document \(document.id) \(document.relativePath.split(separator: "/").dropFirst().joined(separator: "/"))"
        case .folder(let folder, _): "folder \(folder.id) \(folder.path)"
        case .deletedDocument(let id): "deleted document \(id)"
        case .deletedFolder(let id): "deleted folder \(id)"
        }
    }

    var id: UUID {
        switch self {
        case .document(let document, _): document.id
        case .folder(let folder, _): folder.id
        case .deletedDocument(let id), .deletedFolder(let id): id
        }
    }
}
