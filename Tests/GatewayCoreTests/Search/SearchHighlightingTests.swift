import Foundation
import GatewayLibraryModel
import GatewaySearchText
import GatewayWire
import Testing

/// Snippets are segments, never HTML: matches are `match: true`, and a page, a name or a title
/// is highlighted in Swift the way the index splits it.
@Suite("Search snippets and highlighting")
struct SearchHighlightingTests {
    @Test func snippetsAreSegmentsWithWhitespaceShownAsOneSpace() throws {
        let page = "…the Invoice total\nis <b>due</b>\u{02} now,\u{A0}\u{A0}Müller\t"
        let segments = try #require(SearchHighlighter(try SearchQuery(parsing: "invoice now muller")).snippet(page, words: 20)?.segments)
        #expect(
            segments == [
                SnippetSegment("…the "), SnippetSegment("Invoice", match: true), SnippetSegment(" total is <b>due</b> "),
                SnippetSegment("now", match: true), SnippetSegment(", "), SnippetSegment("Müller", match: true), SnippetSegment(" "),
            ],
            "\(segments)"
        )
        // The wire form, as the API and `pdfgate search --json` write it: `match` only on matches.
        let hit = SearchHit(documentID: "d", score: 1.5, page: 2, matchedIn: .text, snippet: Array(segments.prefix(2)))
        var out = JSONOutput()
        out.beginObject()
        SearchJSON(DocumentSearch(hits: [hit], rankedAmong: 1000, capped: false, pending: 3)).write(to: &out)
        out.endObject()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.bytes)) as? [String: Any])
        let written = try #require((json["hits"] as? [[String: Any]])?.first)
        #expect(written["page"] as? Int == 2 && written["matched_in"] as? String == "text" && written["document_id"] as? String == "d")
        let snippet = try #require(written["snippet"] as? [[String: Any]])
        #expect(snippet.count == 2 && snippet[0]["text"] as? String == "…the " && snippet[0]["match"] == nil)
        #expect(snippet[1]["text"] as? String == "Invoice" && snippet[1]["match"] as? Bool == true)
        #expect((json["search"] as? [String: Any])?["pending"] as? Int == 3)
    }

    @Test func aPageSnippetIsAWindowAroundTheFirstMatchAndSaysWhetherItHoldsEveryTerm() throws {
        let page = (1...40).map { "w\($0)" }.joined(separator: " ").replacingOccurrences(of: "w20 ", with: "Invoice ")
        let one = try #require(SearchHighlighter(try SearchQuery(parsing: "invoice")).snippet(page, words: 8))
        #expect(one.holdsAll)
        #expect(one.segments.map(\.text).joined() == "…w18 w19 Invoice w21 w22 w23 w24 w25…", "\(one.segments)")
        #expect(one.segments.filter(\.match).map(\.text) == ["Invoice"])
        let both = try #require(SearchHighlighter(try SearchQuery(parsing: "invoice w2")).snippet(page, words: 8))
        #expect(both.holdsAll && both.segments.filter(\.match).map(\.text) == ["w2"], "starts at the first match: \(both.segments)")
        let half = try #require(SearchHighlighter(try SearchQuery(parsing: "invoice absent")).snippet(page, words: 8))
        #expect(!half.holdsAll)
        #expect(SearchHighlighter(try SearchQuery(parsing: "absent")).snippet(page, words: 8) == nil)
    }

    @Test func namesAreHighlightedWithTheIndexFolding() throws {
        let highlighter = SearchHighlighter(try SearchQuery(parsing: "muller rech* \"march 2026\""))
        #expect(highlighter.holdsAllRequired("Rechnung Müller – March 2026"))
        #expect(!highlighter.holdsAllRequired("Rechnung Müller – March 2025"))
        #expect(
            highlighter.segments("Rechnung Müller – March 2026")
                == [
                    SnippetSegment("Rechnung", match: true), SnippetSegment(" "), SnippetSegment("Müller", match: true), SnippetSegment(" – "),
                    SnippetSegment("March 2026", match: true),
                ]
        )
        #expect(highlighter.segments("nothing here") == nil)
        #expect(highlighter.segments(nil) == nil)
    }

    @Test func documentTextIsCappedPerPageAndPerDocument() {
        let page = String(repeating: "ä", count: DocumentText.maxPageBytes)  // 2 bytes each: twice the cap
        let capped = DocumentText.capped([page, "second\u{0C}page"])
        #expect(capped.truncated)
        #expect(capped.pages[0].utf8.count == DocumentText.maxPageBytes && capped.pages[0].allSatisfy { $0 == "ä" })
        #expect(capped.pages[1] == "second page", "a form feed inside a page would split it")

        let many = DocumentText.capped(Array(repeating: String(repeating: "x", count: DocumentText.maxPageBytes), count: 20))
        #expect(many.truncated && many.pages.count == DocumentText.maxDocumentBytes / DocumentText.maxPageBytes)
        #expect(many.pages.reduce(0) { $0 + $1.utf8.count } == DocumentText.maxDocumentBytes)

        let small = DocumentText.capped(["a", "", "c"])
        #expect(!small.truncated && small.joined == "a\u{0C}\u{0C}c")
    }

    @Test func scopeTokensStayWholeWords() {
        let owner = SearchScopeTokens.owner("alice@example.com / ünïcode")
        let folder = SearchScopeTokens.folder("0F8E3A52-2C1B-4D5E-9F00-1234567890AB")
        #expect(SearchTokenizer.tokens(in: owner) == [owner] && owner.count == 17)
        #expect(folder == "f0f8e3a522c1b4d5e9f001234567890ab")
        #expect(SearchScope(owner: "a").requiredTokens != SearchScope(owner: "b").requiredTokens)
        #expect(
            SearchScopeTokens.tokens(owner: "a", folderID: "", folderAndAncestors: []) == [
                SearchScopeTokens.owner("a"), SearchScopeTokens.ownerRoot("a"),
            ]
        )
    }
}
