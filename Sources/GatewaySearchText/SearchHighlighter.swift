/// Finds a query's terms in a text in Swift: which required terms it holds, and segments marking
/// them. The index decides what matches; this explains a hit (its page and snippet, or its name
/// or title) by the same splitting and a close folding, so both indexes show the same.
public struct SearchHighlighter: Sendable {
    public let query: SearchQuery
    /// The required terms' tokens, folded once.
    private let terms: [FoldedTerm]

    public init(_ query: SearchQuery) {
        self.query = query
        terms = query.required.map { FoldedTerm(tokens: $0.tokens.map(SearchTokenizer.fold), prefix: $0.prefix) }
    }

    /// Whether `text` holds every required term.
    public func holdsAllRequired(_ text: String?) -> Bool {
        guard let text else { return false }
        let words = Words(text)
        return terms.allSatisfy { !words.matches(of: $0).isEmpty }
    }

    /// `text` as segments with every occurrence of a required term marked; nil when none occurs.
    public func segments(_ text: String?) -> [SnippetSegment]? {
        guard let text else { return nil }
        let words = Words(text)
        return marked(words, terms.flatMap(words.matches(of:)), within: 0..<words.ranges.count)
    }

    /// About `words` words of a page around its first match, the matches marked, `…` where the
    /// page goes on: what a hit shows, with whether the page holds every required term (the page
    /// a hit names). Made here rather than by the index (FTS5's `snippet()` is slow on a page
    /// full of a common word), so both indexes show the same. The page is split once. nil when no
    /// required term is on the page.
    public func snippet(_ page: String, words count: Int) -> (holdsAll: Bool, segments: [SnippetSegment])? {
        let words = Words(page)
        let found = terms.map(words.matches(of:))
        guard let first = found.compactMap({ $0.first?.lowerBound }).min() else { return nil }
        // A few words of context before the match, the rest after it.
        let start = max(0, min(first - count / 4, words.ranges.count - count))
        let end = min(words.ranges.count, start + count)
        guard var segments = marked(words, found.flatMap { $0 }, within: start..<end) else { return nil }
        if start > 0 { segments.insert(SnippetSegment("…"), at: 0) }
        if end < words.ranges.count { segments.append(SnippetSegment("…")) }
        return (!found.contains(where: \.isEmpty), Self.merged(segments))
    }

    /// The text of the words `window` covers (all of it, from its first character to its last,
    /// when the window is every word), with the `occurrences` inside it marked, runs of
    /// whitespace shown as one space. Each occurrence is one mark (a phrase's words and what
    /// separates them); occurrences that overlap merge, neighbours stay apart.
    private func marked(_ words: Words, _ occurrences: [Range<Int>], within window: Range<Int>) -> [SnippetSegment]? {
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
        let from = window.lowerBound == 0 ? 0 : words.ranges[window.lowerBound].lowerBound
        let to = window.upperBound == words.ranges.count ? words.bytes.count : words.ranges[window.upperBound - 1].upperBound
        var segments: [SnippetSegment] = []
        var cursor = from
        for span in spans {
            let run = words.ranges[span.lowerBound].lowerBound..<words.ranges[span.upperBound - 1].upperBound
            segments.append(SnippetSegment(words.shown(cursor..<run.lowerBound)))
            segments.append(SnippetSegment(words.shown(run), match: true))
            cursor = run.upperBound
        }
        segments.append(SnippetSegment(words.shown(cursor..<to)))
        return Self.merged(segments)
    }

    /// Neighbouring runs of the same kind as one; empty runs dropped.
    static func merged(_ segments: [SnippetSegment]) -> [SnippetSegment] {
        var out: [SnippetSegment] = []
        for segment in segments where !segment.text.isEmpty {
            if let last = out.last, last.match == segment.match {
                out[out.count - 1].text += segment.text
            } else {
                out.append(segment)
            }
        }
        return out
    }

    /// A required term with its tokens folded.
    private struct FoldedTerm: Sendable {
        let tokens: [String]
        let prefix: Bool
    }

    /// The words of a text, with where each is in its UTF-8 bytes. Most text is ASCII: its words
    /// are compared byte by byte, lower-cased, with no string made per word (making and folding
    /// one per word of every page a search showed was most of a search's time). Other text has
    /// each word folded (`SearchTokenizer.fold`).
    private struct Words {
        let bytes: [UInt8]
        let ranges: [Range<Int>]
        /// Each word folded; nil for ASCII text, whose `lowered` bytes are compared instead.
        let folded: [String]?
        let lowered: [UInt8]

        init(_ text: String) {
            bytes = Array(text.utf8)
            if bytes.allSatisfy({ $0 < 0x80 }) {
                var ranges: [Range<Int>] = []
                var start: Int?
                for (index, byte) in bytes.enumerated() {
                    let inWord = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    if inWord, start == nil { start = index }
                    if !inWord, let begun = start {
                        ranges.append(begun..<index)
                        start = nil
                    }
                }
                if let start { ranges.append(start..<bytes.count) }
                self.ranges = ranges
                folded = nil
                lowered = bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
            } else {
                let scalarRanges = SearchTokenizer.tokenRanges(in: text)
                let utf8 = text.utf8
                ranges = scalarRanges.map {
                    utf8.distance(from: utf8.startIndex, to: $0.lowerBound)..<utf8.distance(from: utf8.startIndex, to: $0.upperBound)
                }
                folded = scalarRanges.map { SearchTokenizer.fold(String(text.unicodeScalars[$0])) }
                lowered = []
            }
        }

        /// Whether word `index` is `token` (or starts with it, for a prefix).
        private func word(_ index: Int, is token: String, prefix: Bool) -> Bool {
            if let folded { return prefix ? folded[index].hasPrefix(token) : folded[index] == token }
            let word = lowered[ranges[index]]
            return prefix ? word.starts(with: token.utf8) : word.elementsEqual(token.utf8)
        }

        /// Each occurrence of `term`, as the word positions it covers.
        func matches(of term: FoldedTerm) -> [Range<Int>] {
            guard term.tokens.count <= ranges.count else { return [] }
            var found: [Range<Int>] = []
            for start in 0...(ranges.count - term.tokens.count) {
                let fits = term.tokens.indices.allSatisfy { offset in
                    word(start + offset, is: term.tokens[offset], prefix: term.prefix && offset == term.tokens.count - 1)
                }
                if fits { found.append(start..<(start + term.tokens.count)) }
            }
            return found
        }

        /// The text of `range` as a snippet shows it: runs of whitespace and control characters
        /// as one space.
        func shown(_ range: Range<Int>) -> String {
            var out: [UInt8] = []
            out.reserveCapacity(range.count)
            var space = false
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                if byte < 0x80 {
                    index += 1
                    if byte <= 0x20 || byte == 0x7F {
                        space = true
                        continue
                    }
                    if space { out.append(0x20) }
                    space = false
                    out.append(byte)
                    continue
                }
                // A multi-byte scalar: whitespace if Unicode says so (a no-break space, say).
                let begin = index
                index = min(begin + (byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2), range.upperBound)
                let scalar = String(decoding: bytes[begin..<index], as: UTF8.self).unicodeScalars.first
                if let scalar, scalar.properties.isWhitespace {
                    space = true
                    continue
                }
                if space { out.append(0x20) }
                space = false
                out.append(contentsOf: bytes[begin..<index])
            }
            if space { out.append(0x20) }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
