/// Finds a query's terms in a short text (a name or title) in Swift: which required terms it
/// holds, and segments marking them. The index decides what matches; this only explains a hit
/// whose text did not match on any page, by the same splitting and a close folding.
public struct SearchHighlighter: Sendable {
    public let query: SearchQuery

    public init(_ query: SearchQuery) {
        self.query = query
    }

    /// Whether `text` holds at least one required term.
    public func holdsAnyRequired(_ text: String?) -> Bool {
        guard let text else { return false }
        let words = FoldedWords(text)
        return query.required.contains { !words.matches(of: $0).isEmpty }
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
        return segments(text, FoldedWords(text))
    }

    /// About `words` words of a page around its first match, the matches marked, `…` where the
    /// page goes on: what a hit shows. Made here rather than by the index (FTS5's `snippet()`
    /// cost a millisecond a hit on a page full of a common word), so both indexes show the same.
    /// nil when no required term is on the page.
    public func snippet(_ page: String, words count: Int) -> [SnippetSegment]? {
        let words = FoldedWords(page)
        guard let first = query.required.compactMap({ words.matches(of: $0).first?.lowerBound }).min() else { return nil }
        // A few words of context before the match, the rest after it.
        let start = max(0, min(first - count / 4, words.ranges.count - count))
        let end = min(words.ranges.count, start + count)
        let scalars = page.unicodeScalars
        let from = start == 0 ? scalars.startIndex : words.ranges[start].lowerBound
        let to = end == words.ranges.count ? scalars.endIndex : words.ranges[end - 1].upperBound
        let window = String(scalars[from..<to])
        guard var marked = segments(window, FoldedWords(window)) else { return nil }
        if start > 0 { marked.insert(SnippetSegment("…"), at: 0) }
        if end < words.ranges.count { marked.append(SnippetSegment("…")) }
        return SnippetMarkup.merged(marked)
    }

    private func segments(_ text: String, _ words: FoldedWords) -> [SnippetSegment]? {
        // Each occurrence is one mark (a phrase's words and what separates them); occurrences
        // that overlap merge, neighbours stay apart.
        var spans: [Range<Int>] = []
        for span in query.required.flatMap({ words.matches(of: $0) }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = spans.last, span.lowerBound < last.upperBound {
                spans[spans.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                spans.append(span)
            }
        }
        guard !spans.isEmpty else { return nil }
        let runs = spans.map { words.ranges[$0.lowerBound].lowerBound..<words.ranges[$0.upperBound - 1].upperBound }
        var out = String.UnicodeScalarView()
        var cursor = text.unicodeScalars.startIndex
        for run in runs {
            out.append(contentsOf: text.unicodeScalars[cursor..<run.lowerBound])
            out.append(contentsOf: String(SnippetMarkup.start).unicodeScalars)
            out.append(contentsOf: text.unicodeScalars[run])
            out.append(contentsOf: String(SnippetMarkup.end).unicodeScalars)
            cursor = run.upperBound
        }
        out.append(contentsOf: text.unicodeScalars[cursor...])
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
