import Foundation
import GatewaySearchText
import PostgresNIO

extension PostgresSearchIndex {
    /// How many of the newest matches a search looks at, as in SQLite. Up to this many are
    /// ranked; past it, the newest come first (see `search`).
    package static let rankedAmong = 1_000

    /// `ts_rank`'s weights of D (the body), C (unused), B (the title) and A (the name): a word in
    /// the name outranks the same word in the text.
    static let weights = "{0.1, 0, 0.5, 1.0}"

    /// `rankedAmong` is a parameter only so a test can see the cap without 1,000 documents.
    package static func search(
        _ request: SearchRequest,
        rankedAmong: Int = PostgresSearchIndex.rankedAmong,
        in session: PostgresSession
    ) async throws -> SearchPage {
        let query = request.query.postgresTSQueryText
        // A whole library is the owner's rows; a folder or the root alone is one more index to
        // intersect.
        let wholeLibrary = request.scope.folderID == nil && request.scope.recursive
        let token = wholeLibrary ? nil : request.scope.requiredTokens.first
        let after = request.after
        // The newest matches up to the cap, one more telling whether there were more
        // (`pdfgate_search_newest`). When there were, they come newest first: ranking the
        // newest thousand reads a thousand rows' words for an order that, among that many
        // matches, says little; only the page's rows are read. Fewer matches are all
        // ranked, best first. Then the page after the cursor, with the counts even when no row
        // follows. (A capped match's score is its `doc_seq`: unique, so no tie needs its id.)
        let rows = try await session.query(
            """
            WITH matched AS MATERIALIZED (
                SELECT doc_seq FROM pdfgate_search_newest(to_tsquery('simple', \(query)), \(request.scope.owner), \(token), \(rankedAmong + 1))
                    AS newest(doc_seq)
            ), ranked AS (
                SELECT doc_seq, (SELECT count(*) FROM matched) > \(rankedAmong) AS capped
                FROM matched ORDER BY doc_seq DESC LIMIT \(rankedAmong)
            ), scored AS (
                SELECT doc_seq, doc_seq::float8 AS score, NULL::text AS document_id FROM ranked WHERE capped
                UNION ALL
                SELECT i.doc_seq, ts_rank('\(unescaped: weights)', i.words, to_tsquery('simple', \(query)))::float8, i.document_id
                FROM ranked AS m JOIN document_index AS i USING (doc_seq) WHERE NOT m.capped
            ), hit AS (
                SELECT doc_seq, score FROM scored
                WHERE \(after?.score)::float8 IS NULL OR score < \(after?.score)
                    OR (score = \(after?.score) AND document_id > \(after?.documentID))
                ORDER BY score DESC, document_id LIMIT \(request.limit + 1)
            )
            SELECT counts.matches, counts.pending, i.doc_seq, i.document_id, i.name, i.title, i.page_rows, hit.score
            FROM (
                SELECT (SELECT count(*) FROM matched) AS matches,
                    (SELECT count(*) FROM document_index WHERE owner = \(request.scope.owner) AND state = 'pending') AS pending
            ) AS counts LEFT JOIN (hit JOIN document_index AS i USING (doc_seq)) ON true
            ORDER BY hit.score DESC, i.document_id
            """
        )
        var matches = 0
        var pending = 0
        var found: [(sequence: Int64, documentID: String, name: String, title: String?, pageRows: Int, score: Double)] = []
        for row in rows {
            let columns = row.makeRandomAccess()
            matches = Int(try columns[0].decode(Int64.self))
            pending = Int(try columns[1].decode(Int64.self))
            guard let sequence = try columns[2].decode(Int64?.self) else { continue }
            found.append(
                (
                    sequence, try columns[3].decode(String.self), try columns[4].decode(String.self), try columns[5].decode(String?.self),
                    Int(try columns[6].decode(Int32.self)), try columns[7].decode(Double.self)
                )
            )
        }
        let shown = found.prefix(request.limit)
        let highlighter = SearchHighlighter(request.query)
        let fewPages = try await pages(of: shown.filter { (1...SearchHighlighter.fewPages).contains($0.pageRows) }.map(\.sequence), in: session)
        let allRequired = SearchQuery(required: request.query.required).postgresTSQueryText
        var hits: [SearchHit] = []
        for hit in shown {
            let page =
                if hit.pageRows > SearchHighlighter.fewPages {
                    try await firstPage(hit.sequence, holdingAll: allRequired, orAny: request.query.postgresAnyRequiredText, highlighter, in: session)
                } else {
                    highlighter.firstPage(of: fewPages[hit.sequence] ?? [])  // nil: only the name or title matched
                }
            hits.append(highlighter.hit(documentID: hit.documentID, score: hit.score, name: hit.name, title: hit.title, page: page))
        }
        return SearchPage(
            hits: hits,
            next: found.count > request.limit ? hits.last?.cursor : nil,
            rankedAmong: rankedAmong,
            capped: matches > rankedAmong,
            pending: pending
        )
    }

    /// The stored pages (number, text) of these documents, in one read: their page is found in
    /// Swift.
    private static func pages(of sequences: [Int64], in session: PostgresSession) async throws -> [Int64: [(number: Int, body: String)]] {
        guard !sequences.isEmpty else { return [:] }
        var pages: [Int64: [(number: Int, body: String)]] = [:]
        for row in try await session.query(
            "SELECT doc_seq, page, body FROM document_pages WHERE doc_seq = ANY(\(sequences)) ORDER BY doc_seq, page"
        ) {
            let (sequence, number, body) = try row.decode((Int64, Int32, String).self)
            pages[sequence, default: []].append((Int(number), body))
        }
        return pages
    }

    /// The first page of a long document holding every required term, else the first holding
    /// any, with its snippet: one read of this document's pages, each tested on its own
    /// `tsvector`.
    private static func firstPage(
        _ sequence: Int64,
        holdingAll all: String,
        orAny any: String,
        _ highlighter: SearchHighlighter,
        in session: PostgresSession
    ) async throws -> (number: Int, snippet: [SnippetSegment])? {
        let rows = try await session.query(
            """
            SELECT page, body FROM document_pages WHERE doc_seq = \(sequence) AND words @@ to_tsquery('simple', \(any))
            ORDER BY words @@ to_tsquery('simple', \(all)) DESC, page LIMIT 1
            """
        )
        guard let (number, body) = try rows.first?.decode((Int32, String).self) else { return nil }
        return (Int(number), highlighter.pageSnippet(body))
    }
}
