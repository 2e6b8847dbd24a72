extension SearchQuery {
    /// The query as FTS5 `MATCH` text, without column filters: `"tok"`, `"tok"*`, `"a b"`,
    /// joined with `AND`, exclusions with FTS5's binary `NOT`. Tokens are letters and digits
    /// only, so quoting them needs no escaping. The index adds its column and scope filters
    /// around it (`{name title body} : (…)`).
    public var fts5MatchText: String {
        var text = required.map(Self.fts5).joined(separator: " AND ")
        if !excluded.isEmpty {
            text = "(" + text + ")" + excluded.map { " NOT " + Self.fts5($0) }.joined()
        }
        return text
    }

    /// Any one of the required terms, for FTS5: which page to show when no single page holds
    /// every term (the words of an AND spread over several pages).
    public var fts5AnyRequiredText: String {
        required.map(Self.fts5).joined(separator: " OR ")
    }

    /// The query as PostgreSQL `to_tsquery` text: `'tok'`, `'tok':*`, `('a' <-> 'b')`, `!'x'`,
    /// joined with `&`. Meant as one bind parameter to `to_tsquery('simple', $1)`; the tokens
    /// hold no quote, backslash or operator, so nothing needs escaping. Tokens are folded
    /// (`SearchTokenizer.fold`) as the PostgreSQL index folds the text it indexes
    /// (`SearchTokenizer.indexedWords`): PostgreSQL has no accent folding of its own without
    /// the `unaccent` extension.
    public var postgresTSQueryText: String {
        (required.map(Self.postgres) + excluded.map { "!" + Self.postgres($0) }).joined(separator: " & ")
    }

    /// Any one of the required terms, for PostgreSQL: `fts5AnyRequiredText`'s counterpart.
    public var postgresAnyRequiredText: String {
        required.map(Self.postgres).joined(separator: " | ")
    }

    private static func fts5(_ term: SearchTerm) -> String {
        "\"" + term.tokens.joined(separator: " ") + "\"" + (term.prefix ? "*" : "")
    }

    private static func postgres(_ term: SearchTerm) -> String {
        var lexemes = term.tokens.map { "'" + SearchTokenizer.fold($0) + "'" }
        if term.prefix { lexemes[lexemes.count - 1] += ":*" }
        return term.isPhrase ? "(" + lexemes.joined(separator: " <-> ") + ")" : lexemes[0]
    }
}
