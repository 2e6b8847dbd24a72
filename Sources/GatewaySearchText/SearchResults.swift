/// What to search for, where, and from which point of the ranking.
public struct SearchRequest: Sendable, Equatable {
    public var query: SearchQuery
    public var scope: SearchScope
    /// Hits after this one in the ranking: the last hit of the previous page.
    public var after: SearchCursor?
    public var limit: Int

    public init(query: SearchQuery, scope: SearchScope, after: SearchCursor? = nil, limit: Int = 20) {
        self.query = query
        self.scope = scope
        self.after = after
        self.limit = max(1, limit)
    }
}

/// A position in the ranking: hits order by score, best first, then by document id.
public struct SearchCursor: Sendable, Equatable {
    public var score: Double
    public var documentID: String

    public init(score: Double, documentID: String) {
        self.score = score
        self.documentID = documentID
    }
}

/// One page of hits, best first.
public struct SearchPage: Sendable, Equatable {
    public var hits: [SearchHit]
    /// Set when more hits follow: the last hit's position.
    public var next: SearchCursor?
    /// Only the newest this-many matching documents are looked at: ranking every match of a
    /// word in every document costs too much in a large library, so the answer says so.
    public var rankedAmong: Int
    /// More documents matched than `rankedAmong`: older ones are not shown, and the newest may
    /// come newest first rather than best first (PostgreSQL always lists them so; SQLite when
    /// every word is common).
    public var capped: Bool
    /// The owner's documents whose text is not indexed yet (they match by name and title only),
    /// read with the hits: an answer can say the search is not complete.
    public var pending: Int

    public init(hits: [SearchHit], next: SearchCursor?, rankedAmong: Int, capped: Bool, pending: Int) {
        self.hits = hits
        self.next = next
        self.rankedAmong = rankedAmong
        self.capped = capped
        self.pending = pending
    }
}

/// A document that matched, with where and a piece of its text around the match.
public struct SearchHit: Sendable, Equatable {
    public var documentID: String
    /// Higher is better; comparable only within one search.
    public var score: Double
    /// The first page holding every required term, else the first holding any; nil when only the
    /// name or title matched (or the text is not indexed yet).
    public var page: Int?
    public var matchedIn: MatchedIn
    /// Text around the match with the matching words marked: plain segments, never HTML, so a
    /// page can show them with `textContent` and `<mark>`.
    public var snippet: [SnippetSegment]

    public init(documentID: String, score: Double, page: Int?, matchedIn: MatchedIn, snippet: [SnippetSegment]) {
        self.documentID = documentID
        self.score = score
        self.page = page
        self.matchedIn = matchedIn
        self.snippet = snippet
    }

    /// The cursor that continues after this hit.
    public var cursor: SearchCursor { SearchCursor(score: score, documentID: documentID) }
}

/// Where a hit's required terms all are: the name counts most, then the title, then the text.
public enum MatchedIn: String, Sendable, Codable, CaseIterable {
    case name
    case title
    case text
}

/// A run of snippet text, marked when it is a matching word. `SearchJSON` writes its wire form.
public struct SnippetSegment: Sendable, Equatable {
    public var text: String
    public var match: Bool

    public init(_ text: String, match: Bool = false) {
        self.text = text
        self.match = match
    }
}
