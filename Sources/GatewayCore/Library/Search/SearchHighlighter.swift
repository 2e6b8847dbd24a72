/// Finds a query's terms in a short text (a name or title) in Swift: which required terms it
/// holds, and segments marking them. The index decides what matches; this only explains a hit
/// whose text did not match on any page, by the same splitting and a close folding.
public struct SearchHighlighter: Sendable {
    public let query: SearchQuery

    public init(_ query: SearchQuery) {
        self.query = query
    }

    /// Whether `text` holds every required term.
    public func holdsAllRequired(_ text: String?) -> Bool {
        guard let text else { return false }
        let words = FoldedWords(text)
        return query.required.allSatisfy { !words.matches(of: $0).isEmpty }
    }

    /// `text` as segments with every occurrence of a required term marked; nil when none occurs.
    public func segments(_ text: String?) -> [SnippetSegment]? {
        guard let text else { return nil }
        let words = FoldedWords(text)
        return marked(text, words, query.required.flatMap(words.matches(of:)), within: 0..<words.ranges.count)
    }

    /// About `words` words of a page around its first match, the matches marked, `…` where the
    /// page goes on: what a hit shows, with whether the page holds every required term (the page
    /// a hit names). Made here rather than by the index (FTS5's `snippet()` cost a millisecond a
    /// hit on a page full of a common word), so both indexes show the same. The page is split
    /// and folded once. nil when no required term is on the page.
    public func snippet(_ page: String, words count: Int) -> (holdsAll: Bool, segments: [SnippetSegment])? {
        let words = FoldedWords(page)
        let found = query.required.map(words.matches(of:))
        guard let first = found.compactMap({ $0.first?.lowerBound }).min() else { return nil }
        // A few words of context before the match, the rest after it.
        let start = max(0, min(first - count / 4, words.ranges.count - count))
        let end = min(words.ranges.count, start + count)
        guard var segments = marked(page, words, found.flatMap { $0 }, within: start..<end) else { return nil }
        if start > 0 { segments.insert(SnippetSegment("…"), at: 0) }
        if end < words.ranges.count { segments.append(SnippetSegment("…")) }
        return (!found.contains(where: \.isEmpty), SnippetMarkup.merged(segments))
    }

    /// The text of the words `window` covers (all of it, from its first character to its last,
    /// when the window is every word), with the `occurrences` inside it marked. Each occurrence
    /// is one mark (a phrase's words and what separates them); occurrences that overlap merge,
    /// neighbours stay apart.
    private func marked(_ text: String, _ words: FoldedWords, _ occurrences: [Range<Int>], within window: Range<Int>) -> [SnippetSegment]? {
        var spans: [Range<Int>] = []
        for span in occurrences.filter({ window.contains($0.lowerBound) && $0.upperBound <= window.upperBound })
            .sorted(by: { $0.lowerBound < $1.lowerBound })
        {
            if let last = spans.last, span.lowerBound < last.upperBound {
                spans[spans.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                spans.append(span)
            }
        }
        guard !spans.isEmpty else { return nil }
        let scalars = text.unicodeScalars
        let from = window.lowerBound == 0 ? scalars.startIndex : words.ranges[window.lowerBound].lowerBound
        let to = window.upperBound == words.ranges.count ? scalars.endIndex : words.ranges[window.upperBound - 1].upperBound
        var out = String.UnicodeScalarView()
        var cursor = from
        for span in spans {
            let run = words.ranges[span.lowerBound].lowerBound..<words.ranges[span.upperBound - 1].upperBound
            out.append(contentsOf: scalars[cursor..<run.lowerBound])
            out.append(contentsOf: String(SnippetMarkup.start).unicodeScalars)
            out.append(contentsOf: scalars[run])
            out.append(contentsOf: String(SnippetMarkup.end).unicodeScalars)
            cursor = run.upperBound
        }
        out.append(contentsOf: scalars[cursor..<to])
        return SnippetMarkup.segments(String(out))
    }

    /// The words of a text, folded, with where each is.
    private struct FoldedWords {
        let ranges: [Range<String.UnicodeScalarView.Index>]
        let folded: [String]

        init(_ text: String) {
            ranges = SearchTokenizer.tokenRanges(in: text)
            folded = ranges.map { SearchTokenizer.fold(String(text.unicodeScalars[$0])) }
        }

        /// Each occurrence of `term`, as the word positions it covers.
        func matches(of term: SearchTerm) -> [Range<Int>] {
            let tokens = term.tokens.map(SearchTokenizer.fold)
            guard tokens.count <= folded.count else { return [] }
            var found: [Range<Int>] = []
            for start in 0...(folded.count - tokens.count) {
                let fits = tokens.indices.allSatisfy { offset in
                    let word = folded[start + offset]
                    let last = offset == tokens.count - 1
                    return last && term.prefix ? word.hasPrefix(tokens[offset]) : word == tokens[offset]
                }
                if fits { found.append(start..<(start + tokens.count)) }
            }
            return found
        }
    }
}
