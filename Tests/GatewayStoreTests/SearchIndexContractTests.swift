import Foundation
import GatewayLibraryModel
import GatewaySearchText
import GatewayStore
import GatewayTestSupport
import Testing

/// What every `SearchIndex` promises, run unchanged on each backend: the query language, case
/// and accent folding, pages, scopes, following renames and moves, ranking, snippets, paging,
/// backfill state and fsck.
@Suite("SearchIndex contract")
struct SearchIndexContractTests {
    @Test(arguments: SearchIndexBackend.allCases)
    func wordsPhrasesPrefixesAndExclusions(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        try await search.file("a", pages: ["The invoice total amount is due in March."])
        try await search.file("b", pages: ["An amount in total, not an invoice draft."])
        try await search.file("c", pages: ["Rechnung für den Kunden, e-mail an die Buchhaltung."])

        #expect(try await search.names("invoice") == ["a", "b"])
        #expect(try await search.names("invoice march") == ["a"], "words AND")
        #expect(try await search.names("\"total amount\"") == ["a"], "a phrase is words in a row")
        #expect(try await search.names("\"amount total\"") == [])
        #expect(try await search.names("invoi*") == ["a", "b"], "a prefix")
        #expect(try await search.names("inv") == [], "no prefix without a star")
        #expect(try await search.names("invoice -draft") == ["a"], "an exclusion")
        #expect(try await search.names("invoice -\"total amount\"") == ["b"], "an excluded phrase")
        #expect(try await search.names("email") == [])
        #expect(try await search.names("e-mail") == ["c"], "e-mail is the phrase e mail")
        #expect(try await search.names("kunden buchhaltung") == ["c"])
        #expect(try await search.names("nothing") == [])
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func caseAndAccentsAreFolded(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        try await search.file("Brief", pages: ["Sehr geehrter Herr Müller, anbei die Crème brûlée."])
        try await search.file("Notiz", pages: ["MULLER called about the CREME order."])

        #expect(try await search.names("muller") == ["Brief", "Notiz"], "muller finds Müller")
        #expect(try await search.names("MÜLLER") == ["Brief", "Notiz"])
        #expect(try await search.names("creme brulee") == ["Brief"])
        #expect(try await search.names("crè*") == ["Brief", "Notiz"])
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func hitsNameTheFirstMatchingPage(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        try await search.file("report", pages: ["alpha introduction", "beta gamma", "", "delta alpha epsilon"])

        func page(_ text: String) async throws -> Int? { try await search.search(text).first?.page }
        #expect(try await page("beta") == 2)
        #expect(try await page("alpha") == 1)
        #expect(try await page("delta alpha") == 4, "the first page holding every word")
        #expect(try await page("epsilon") == 4, "page numbers count pages without text")
        // The words of an AND may be on different pages: the document matches, and its hit
        // names the first page holding any of them.
        #expect(try await search.names("gamma epsilon") == ["report"])
        #expect(try await page("gamma epsilon") == 2)
        #expect(try await search.names("gamma zeta") == [])
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func foldersAndOwnersScopeASearch(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        let library = search.library.library
        let invoices = try await library.createFolder(path: "Invoices", owner: "alice")
        let year = try await library.createFolder(path: "Invoices/2026", owner: "alice")
        let other = try await library.createFolder(path: "Other", owner: "alice")
        try await search.file("root", pages: ["quarterly report"])
        try await search.file("top", folder: .id(invoices.id), pages: ["quarterly report"])
        try await search.file("deep", folder: .id(year.id), pages: ["quarterly report"])
        try await search.file("elsewhere", folder: .id(other.id), pages: ["quarterly report"])
        try await search.file("bobs", owner: "bob", pages: ["quarterly report"])

        #expect(try await search.names("quarterly") == ["deep", "elsewhere", "root", "top"], "the whole library, not bob's")
        #expect(try await search.names("quarterly", recursive: false) == ["root"], "the root folder alone")
        #expect(try await search.names("quarterly", folder: invoices) == ["deep", "top"], "a folder and its subfolders")
        #expect(try await search.names("quarterly", folder: invoices, recursive: false) == ["top"])
        #expect(try await search.names("quarterly", folder: year) == ["deep"])
        #expect(try await search.names("quarterly", owner: "bob") == ["bobs"])
        #expect(try await search.names("quarterly", owner: "carol") == [])
        #expect(try await search.names("quarterly", owner: "bob", folder: invoices) == [], "another owner's folder finds nothing")
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func renamesMovesAndDeletesAreFollowed(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        let library = search.library.library
        let a = try await library.createFolder(path: "A", owner: "alice")
        let b = try await library.createFolder(path: "B", owner: "alice")
        let sub = try await library.createFolder(path: "A/Sub", owner: "alice")
        let letter = try await search.file("letter", folder: .id(sub.id), pages: ["a signed contract"])
        let note = try await search.file("note", folder: .id(a.id), pages: ["an unsigned contract"])
        try await search.file("kept", pages: ["another contract"])

        // Rename: the new name is found, the old one is not, and the text still is.
        try await library.updateDocument(id: letter.id, owner: "alice", name: "Agreement Zurich")
        try await search.index.rename(documentID: letter.id.lowercased, name: "Agreement Zurich", title: nil)
        #expect(try await search.names("zurich") == ["Agreement Zurich"])
        #expect(try await search.names("letter") == [])
        #expect(try await search.names("signed") == ["Agreement Zurich"])

        // A document's move.
        try await library.updateDocument(id: note.id, owner: "alice", folder: .id(b.id))
        try await search.index.move(documentID: note.id.lowercased, folderID: b.id.lowercased)
        #expect(try await search.names("contract", folder: a) == ["Agreement Zurich"])
        #expect(try await search.names("contract", folder: b) == ["note"])

        // A folder's move: what is under it follows, at any depth.
        try await library.updateFolder(.id(sub.id), owner: "alice", parent: .id(b.id))
        try await search.index.moveFolder(id: sub.id.lowercased)
        #expect(try await search.names("contract", folder: a) == [])
        #expect(try await search.names("contract", folder: b) == ["Agreement Zurich", "note"])
        #expect(try await search.names("contract", folder: b, recursive: false) == ["note"])
        #expect(try await search.names("contract", folder: sub) == ["Agreement Zurich"])

        // Deletes, one document and a tree.
        try await library.deleteDocument(id: note.id, owner: "alice")
        try await search.index.delete(documentIDs: [note.id.lowercased])
        #expect(try await search.names("contract") == ["Agreement Zurich", "kept"])
        try await search.index.delete(documentIDs: [letter.id.lowercased, UUID().lowercased])
        #expect(try await search.names("contract") == ["kept"])
        #expect(try await search.names("signed") == [])
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func aNameHitRanksAboveATextHitWithSnippets(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        try await search.file("Scan 0412", pages: ["Lorem ipsum dolor.", "Please pay the invoice total\nby Friday, thank you."])
        try await search.file("Invoice March", pages: ["Nothing about money here."])

        let hits = try await search.search("invoice")
        try #require(hits.count == 2)
        let named = try await search.library.library.document(id: UUID(uuidString: hits[0].documentID)!, owner: "alice")
        #expect(named.name == "Invoice March", "the name hit first")
        #expect(hits[0].score > hits[1].score)
        #expect(hits[0].matchedIn == .name && hits[0].page == nil)
        #expect(hits[0].snippet == [SnippetSegment("Invoice", match: true), SnippetSegment(" March")], "the name, marked")

        #expect(hits[1].matchedIn == .text && hits[1].page == 2)
        let snippet = hits[1].snippet
        #expect(snippet.filter(\.match).map(\.text) == ["invoice"], "\(snippet)")
        #expect(snippet.map(\.text).joined().contains("pay the invoice total by Friday"), "text around it, line breaks as spaces: \(snippet)")
        #expect(!snippet.map(\.text).joined().contains("\u{02}"))
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func aCursorPagesThroughEveryHitOnce(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        for index in 0..<23 {
            // Varied lengths and counts give varied scores; a few tie.
            let words = Array(repeating: "ledger", count: 1 + index % 4) + Array(repeating: "filler", count: index % 5)
            try await search.file("doc \(index)", pages: [words.joined(separator: " ")])
        }
        let query = try SearchQuery(parsing: "ledger")
        var seen: [SearchHit] = []
        var after: SearchCursor?
        var pages = 0
        repeat {
            let page = try await search.index.search(SearchRequest(query: query, scope: SearchScope(owner: "alice"), after: after, limit: 5))
            #expect(page.hits.count <= 5)
            #expect(page.rankedAmong >= 23 && !page.capped)
            seen += page.hits
            after = page.next
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 5)
        #expect(Set(seen.map(\.documentID)).count == 23, "every hit once")
        let order = seen.map { ($0.score, $0.documentID) }
        #expect(zip(order, order.dropFirst()).allSatisfy { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }, "best first, ties by id")
        let whole = try await search.index.search(SearchRequest(query: query, scope: SearchScope(owner: "alice"), limit: 100))
        #expect(whole.hits.map(\.documentID) == seen.map(\.documentID) && whole.next == nil, "pages add up to the whole list")
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func pendingDocumentsMatchByNameUntilTheirTextIsWritten(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        let waiting = try await search.file("Waiting Room", pages: nil)
        try await search.file("done", pages: ["a room with a view"])
        let failed = try await search.library.file(SearchFixture.pdf, name: "Broken Room")
        try await search.index.write(search.entry(for: failed, content: .failed))

        #expect(try await search.index.status(owner: nil) == SearchIndexStatus(pending: 1, ready: 1, failed: 1))
        #expect(try await search.index.status(owner: "bob") == SearchIndexStatus(pending: 0, ready: 0, failed: 0))
        #expect(try await search.index.pending(limit: 10) == [PendingDocument(documentID: waiting.id.lowercased, owner: "alice")])
        #expect(try await search.names("room") == ["Broken Room", "Waiting Room", "done"])
        let page = try await search.index.search(SearchRequest(query: try SearchQuery(parsing: "room"), scope: SearchScope(owner: "alice")))
        #expect(page.pending == 1, "the answer says one document is not fully searchable yet")
        #expect(try await search.names("view") == ["done"])

        try await search.index.write(search.entry(for: waiting, content: .text(DocumentText(pages: ["a view of the sea"]), source: .ocr)))
        #expect(try await search.index.status(owner: "alice") == SearchIndexStatus(pending: 0, ready: 2, failed: 1))
        #expect(try await search.index.status(owner: "alice").complete)
        #expect(try await search.index.pending(limit: 10).isEmpty)
        #expect(try await search.names("view") == ["Waiting Room", "done"])
        // A rewrite replaces the text.
        try await search.index.write(search.entry(for: waiting, content: .text(DocumentText(pages: ["only the harbour"]), source: .pdf)))
        #expect(try await search.names("view") == ["done"])
        #expect(try await search.names("harbour") == ["Waiting Room"])
    }

    @Test(arguments: SearchIndexBackend.allCases)
    func checkFindsMissingStaleAndOrphanEntriesAndRepairFixesThem(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        let library = search.library.library
        #expect(try await search.index.check(verifyFullText: true).isEmpty)

        // The catalog keeps the index in step; each of these is what a change it missed (a store
        // from before the index, a crash, a hand edit) would leave.
        let unindexed = try await search.library.file(SearchFixture.pdf, name: "unindexed")
        try await search.index.delete(documentIDs: [unindexed.id.lowercased])
        let renamed = try await search.file("before", pages: ["renamed text"])
        try await library.updateDocument(id: renamed.id, owner: "alice", name: "after")
        try await search.index.rename(documentID: renamed.id.lowercased, name: "before", title: nil)
        let otherFile = try await search.file("other file", pages: ["old text"])
        var wrongDigest = search.entry(for: otherFile, content: .text(DocumentText(pages: ["old text"]), source: .pdf))
        wrongDigest.sha256 = String(repeating: "0", count: 64)
        try await search.index.write(wrongDigest)
        let gone = try await search.file("gone", pages: ["deleted text"])
        try await library.deleteDocument(id: gone.id, owner: "alice")
        try await search.index.write(search.entry(for: gone, content: .text(DocumentText(pages: ["deleted text"]), source: .pdf)))
        try await search.file("fine", pages: ["fine text"])

        let issues = try await search.index.check(verifyFullText: true)
        #expect(try await search.index.check(verifyFullText: false) == issues, "nothing here needs the full-text check")
        let found = Dictionary(grouping: issues, by: \.kind).mapValues { $0.compactMap(\.documentID).sorted() }
        #expect(found[.missing] == [unindexed.id.lowercased], "\(issues)")
        #expect(found[.stale] == [renamed.id.lowercased, otherFile.id.lowercased].sorted(), "\(issues)")
        #expect(found[.orphan] == [gone.id.lowercased], "\(issues)")
        #expect(found[.corrupt] == nil)
        #expect(issues.first { $0.documentID == renamed.id.lowercased }?.detail.contains("name") == true)
        #expect(issues.first { $0.documentID == otherFile.id.lowercased }?.detail.contains("sha256") == true)

        try await search.index.repair(issues)
        #expect(try await search.index.check(verifyFullText: true).isEmpty)
        #expect(try await search.names("after") == ["after"], "the new name is indexed")
        #expect(try await search.names("renamed") == ["after"], "and its text, read from the same file, kept")
        #expect(try await search.names("unindexed") == ["unindexed"], "a missing document is added, pending")
        #expect(try await search.names("deleted") == [], "an orphan is gone")
        #expect(try await search.names("old") == [], "text of another file is dropped")
        let pending = Set(try await search.index.pending(limit: 10).map(\.documentID))
        #expect(pending == [unindexed.id.lowercased, otherFile.id.lowercased], "both wait for their text")
    }
}
