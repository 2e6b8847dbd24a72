/// A hit as every index answers it: its page and snippet found in Swift from the page's text, so
/// both indexes name the same page and show the same words.
extension SearchHighlighter {
    /// Words of a snippet around the first match on the page.
    public static let snippetWords = 16

    /// Most documents have a few pages: an index reads their text in one range of rows and the
    /// page is found here, which costs less than a full-text match per hit. Longer documents are
    /// left to the index's own page match.
    public static let fewPages = 4

    /// The first page holding every required term, else the first holding any, with its
    /// snippet: each page split and folded once. nil when no page holds a term: only the name
    /// or title matched.
    public func firstPage(of pages: [(number: Int, body: String)]) -> (number: Int, snippet: [SnippetSegment])? {
        var firstWithAny: (number: Int, snippet: [SnippetSegment])?
        for page in pages {
            guard let found = snippet(page.body, words: Self.snippetWords) else { continue }
            if found.holdsAll { return (page.number, found.segments) }
            if firstWithAny == nil { firstWithAny = (page.number, found.segments) }
        }
        return firstWithAny
    }

    /// The snippet of a page the index matched.
    public func pageSnippet(_ body: String) -> [SnippetSegment] {
        snippet(body, words: Self.snippetWords)?.segments ?? []
    }

    /// The hit of a document with this name and title, found on `page` (nil when only the name
    /// or title matched): where its required terms all are, and what it shows.
    public func hit(
        documentID: String,
        score: Double,
        name: String,
        title: String?,
        page: (number: Int, snippet: [SnippetSegment])?
    ) -> SearchHit {
        let matchedIn: MatchedIn = holdsAllRequired(name) ? .name : holdsAllRequired(title) ? .title : .text
        let snippet = page?.snippet ?? segments(name) ?? segments(title) ?? []
        return SearchHit(documentID: documentID, score: score, page: page?.number, matchedIn: matchedIn, snippet: snippet)
    }
}
