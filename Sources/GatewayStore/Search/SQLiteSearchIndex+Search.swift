import Foundation
import GRDB
import GatewaySearchText

extension SQLiteSearchIndex {
    /// How many of the newest matching documents are ranked. bm25 over every match of a common
    /// word costs in proportion to the library; the newest 1,000 rank in a fraction of that, and
    /// the answer says the ranking stopped there (`SearchPage.capped`). What remains is bm25's
    /// IDF, a walk over each term's whole doclist, which `search` spends on the rarer terms only.
    package static let rankedAmong = 1_000

    /// bm25 weights of name, title, body and scope: a word in the name outranks the same word
    /// in the text; the scope tokens never count.
    static let weights = "10.0, 5.0, 1.0, 0.0"

    /// `rankedAmong` is a parameter only so a test can see the cap without 1,000 documents.
    package static func search(_ request: SearchRequest, rankedAmong: Int = SQLiteSearchIndex.rankedAmong, in db: Database) throws -> SearchPage {
        var tokens = request.scope.requiredTokens
        if request.scope.folderID == nil, request.scope.recursive, try onlyOwner(request.scope.owner, in: db) {
            tokens = []  // every entry is the owner's: the owner's token would only cost its IDF walk
        }
        let match = (tokens.map { "scope : \"\($0)\" AND " } + ["{name title body} : (" + request.query.fts5MatchText + ")"]).joined()
        // The newest matches up to the cap, newest first: FTS5 walks the doclists from the end
        // and stops there (one more row tells whether there were more).
        let newest = try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT rowid FROM document_fts WHERE document_fts MATCH ? ORDER BY rowid DESC LIMIT ?"),
            arguments: [match, rankedAmong + 1]
        )
        let candidates = newest.prefix(rankedAmong)
        // bm25 weighs each term by its IDF, which FTS5 finds by walking the term's whole doclist,
        // once per word per search: a long walk for a word in nearly every document. A word that
        // common weighs next to nothing, so only the rarer terms are weighed, by a second match of
        // those alone over the candidates' rowid range. A search of common words only lists the
        // newest matches first.
        var weighed: [SearchTerm] = []
        for term in request.query.required where try !isCommon(term, in: db) { weighed.append(term) }
        var scores: [Int64: Double] = [:]
        if !weighed.isEmpty, let oldest = candidates.last, let latest = candidates.first {
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT rowid, -bm25(document_fts, \(weights)) FROM document_fts
                        WHERE document_fts MATCH ? AND rowid BETWEEN ? AND ?
                        """
                ),
                arguments: ["{name title body} : (" + SearchQuery(required: weighed).fts5MatchText + ")", oldest, latest]
            )
            for row in rows { scores[row[0]] = row[1] }
        }
        // The page: the candidates with their scores (as JSON: one parameter however many),
        // the owner's only, after the cursor, best first.
        let scored = candidates.map { seq in "[\(seq),\(weighed.isEmpty ? Double(seq) : scores[seq] ?? 0)]" }
        let after = request.after
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    WITH scored AS (SELECT value ->> 0 AS seq, value ->> 1 AS score FROM json_each(?))
                    SELECT i.doc_seq, i.document_id, i.name, i.title, c.score
                    FROM scored AS c JOIN document_index AS i ON i.doc_seq = c.seq
                    WHERE i.owner = ? AND (? IS NULL OR c.score < ? OR (c.score = ? AND i.document_id > ?))
                    ORDER BY c.score DESC, i.document_id LIMIT ?
                    """
            ),
            // The owner of each hit: a folder scope filters by the folder's token alone.
            arguments: [
                "[" + scored.joined(separator: ",") + "]", request.scope.owner, after?.score, after?.score, after?.score,
                after?.documentID, request.limit + 1,
            ]
        )
        let highlighter = SearchHighlighter(request.query)
        let allRequired = SearchQuery(required: request.query.required).fts5MatchText
        var hits: [SearchHit] = []
        for row in rows.prefix(request.limit) {
            let (sequence, documentID, name, title, score): (Int64, String, String, String?, Double) = (row[0], row[1], row[2], row[3], row[4])
            let page: (number: Int, snippet: [SnippetSegment])?
            if let pages = try pagesIfFew(sequence, in: db) {
                page = highlighter.firstPage(of: pages)  // final: nil means only the name or title matched
            } else {
                page =
                    try firstPage(sequence, matching: allRequired, highlighter, in: db)
                    ?? firstPage(sequence, matching: request.query.fts5AnyRequiredText, highlighter, in: db)
            }
            hits.append(highlighter.hit(documentID: documentID, score: score, name: name, title: title, page: page))
        }
        // A range of the (owner, state) index: only the pending entries are counted.
        let pending = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM document_index WHERE owner = ? AND state = 'pending'"),
            arguments: [request.scope.owner]
        )
        return SearchPage(
            hits: hits,
            next: rows.count > request.limit ? hits.last?.cursor : nil,
            rankedAmong: rankedAmong,
            capped: newest.count > rankedAmong,
            pending: pending ?? 0
        )
    }

    /// How many documents a term may be in and still be weighed (see `search`): walking this
    /// many costs bm25 well under a millisecond.
    static let commonTermDocuments = 2_000

    /// Whether `term` is in at least `commonTermDocuments` documents: counted up to there only.
    private static func isCommon(_ term: SearchTerm, in db: Database) throws -> Bool {
        let count = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM document_fts WHERE document_fts MATCH ? LIMIT ?)"),
            arguments: ["{name title body} : (" + SearchQuery(required: [term]).fts5MatchText + ")", commonTermDocuments]
        )
        return (count ?? 0) >= commonTermDocuments
    }

    /// Whether every entry of the index is `owner`'s: the smallest and the largest owner of the
    /// (owner, state) index, two lookups. In the read's snapshot, so no other owner's entry can
    /// appear before the search runs.
    private static func onlyOwner(_ owner: String, in db: Database) throws -> Bool {
        let first = try String.fetchOne(db.cachedStatement(sql: "SELECT owner FROM document_index ORDER BY owner LIMIT 1"))
        let last = try String.fetchOne(db.cachedStatement(sql: "SELECT owner FROM document_index ORDER BY owner DESC LIMIT 1"))
        return first == owner && last == owner
    }

    /// The stored pages (number, text) of a document with at most `SearchHighlighter.fewPages`;
    /// nil for longer.
    private static func pagesIfFew(_ sequence: Int64, in db: Database) throws -> [(number: Int, body: String)]? {
        let range = pageRange(sequence)
        let pages = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT page, body FROM document_pages WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?"),
            arguments: [range.lowerBound, range.upperBound, SearchHighlighter.fewPages + 1]
        )
        return pages.count <= SearchHighlighter.fewPages ? pages.map { ($0[0], $0[1]) } : nil
    }

    /// The first page of the document matching `match`, with its snippet. No bm25 here: the first
    /// matching page in page order is cheap to find; ranking pages would cost an IDF walk per hit.
    private static func firstPage(
        _ sequence: Int64,
        matching match: String,
        _ highlighter: SearchHighlighter,
        in db: Database
    ) throws -> (number: Int, snippet: [SnippetSegment])? {
        let pages = pageRange(sequence)
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT rowid - ?, body FROM page_fts
                        WHERE page_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT 1
                        """
                ),
                arguments: [pages.lowerBound, match, pages.lowerBound, pages.upperBound]
            )
        else { return nil }
        return (row[0], highlighter.pageSnippet(row[1]))
    }
}
