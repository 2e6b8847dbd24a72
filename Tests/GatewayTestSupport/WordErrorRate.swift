/// How far recognised text is from what a page says: word-level edit distance (substitutions,
/// insertions, deletions) over the reference's word count, words being runs of letters and
/// digits compared in lower case, so punctuation and line breaks do not count.
public struct WordErrorRate: Sendable, Equatable {
    /// Edits that turn the hypothesis into the reference.
    public var errors: Int
    /// Words of the reference.
    public var words: Int

    /// 0 for a perfect match; can pass 1 when the hypothesis has many extra words.
    public var rate: Double { words == 0 ? (errors == 0 ? 0 : 1) : Double(errors) / Double(words) }

    public init(errors: Int, words: Int) {
        self.errors = errors
        self.words = words
    }

    /// `hypothesis` measured against `reference`.
    public init(reference: String, hypothesis: String) {
        let expected = Self.words(reference)
        let found = Self.words(hypothesis)
        self.init(errors: Self.distance(expected, found), words: expected.count)
    }

    /// Pages summed: the rate of a document, not the mean of its pages'.
    public static func + (lhs: WordErrorRate, rhs: WordErrorRate) -> WordErrorRate {
        WordErrorRate(errors: lhs.errors + rhs.errors, words: lhs.words + rhs.words)
    }

    /// Runs of letters and digits, lower-cased.
    public static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// Levenshtein distance over words, one row at a time.
    static func distance(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
