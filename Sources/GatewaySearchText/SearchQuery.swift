/// A full-text search as the user typed it, parsed once in Swift: each index renders it into its
/// own query language (FTS5 `MATCH`, PostgreSQL `to_tsquery`), so both backends read the same
/// words the same way and no user text ever reaches either parser unchecked.
///
/// Words are ANDed, `"quoted words"` are a phrase, `word*` is a prefix (of at least three
/// characters, else the whole word), `-word` excludes. Text splits like FTS5's unicode61
/// tokenizer, on anything not a letter or digit: `e-mail` is the phrase `e mail`.
public struct SearchQuery: Sendable, Equatable, CustomStringConvertible {
    /// Terms a hit contains, all of them.
    public var required: [SearchTerm]
    /// Terms a hit contains none of.
    public var excluded: [SearchTerm]

    /// Longer input is refused rather than cut: a cut query would find something else.
    public static let maxCharacters = 256
    /// Each term is a doclist to intersect; past a handful, a query is a paste, not a search.
    public static let maxTerms = 16
    /// Shorter prefixes expand to too many words to rank quickly, so they match the whole word
    /// instead.
    public static let minPrefixCharacters = 3

    /// A query of already-split terms; `init(parsing:)` is how user text becomes one.
    public init(required: [SearchTerm], excluded: [SearchTerm] = []) {
        self.required = required
        self.excluded = excluded
    }

    /// The query in its own syntax, normalised: `invoice "total amount" inv* -draft`.
    public var description: String {
        (required.map(\.description) + excluded.map { "-" + $0.description }).joined(separator: " ")
    }
}

/// One word, or a phrase of words in a row; the last word may be a prefix.
public struct SearchTerm: Sendable, Equatable, CustomStringConvertible {
    /// Lower-cased tokens, each only letters, digits and combining marks: nothing any query
    /// language would need escaped.
    public var tokens: [String]
    /// Whether the last token matches any word starting with it.
    public var prefix: Bool

    /// nil when `tokens` is empty (the text had no letter or digit). `prefix` is dropped when
    /// the last token is shorter than `SearchQuery.minPrefixCharacters`.
    public init?(tokens: [String], prefix: Bool = false) {
        guard let last = tokens.last else { return nil }
        self.tokens = tokens
        self.prefix = prefix && last.count >= SearchQuery.minPrefixCharacters
    }

    /// A phrase has more than one token.
    public var isPhrase: Bool { tokens.count > 1 }

    public var description: String {
        let words = tokens.joined(separator: " ")
        return (isPhrase ? "\"\(words)\"" : words) + (prefix ? "*" : "")
    }
}
