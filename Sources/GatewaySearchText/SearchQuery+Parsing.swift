extension SearchQuery {
    /// Parses what a user typed; throws `invalid_query` when it is too long, has too many terms,
    /// or has nothing to look for (empty, or only exclusions).
    public init(parsing text: String) throws(SearchQueryError) {
        let characters = text.count
        guard characters <= Self.maxCharacters else { throw .tooLong(characters) }
        var required: [SearchTerm] = []
        var excluded: [SearchTerm] = []
        for item in Self.items(of: text) {
            // An item without a letter or digit (`-`, `*`, `""`) says nothing to search for.
            guard let term = SearchTerm(tokens: SearchTokenizer.tokens(in: item.text).map { $0.lowercased() }, prefix: item.star) else {
                continue
            }
            if item.excluded { excluded.append(term) } else { required.append(term) }
        }
        let terms = required.count + excluded.count
        guard terms <= Self.maxTerms else { throw .tooManyTerms(terms) }
        guard !required.isEmpty else { throw excluded.isEmpty ? .empty : .onlyExclusions }
        self.init(required: required, excluded: excluded)
    }

    /// One space-separated item of the input, or one quoted phrase.
    struct Item: Equatable {
        var text: String
        var excluded: Bool
        var star: Bool
    }

    /// Splits the input into items: whitespace separates; `"…"` is one item up to the next quote
    /// (or the end, when the quote is never closed) and may be followed by `*`; a leading `-`
    /// directly before an item excludes it.
    static func items(of text: String) -> [Item] {
        let scalars = Array(text.unicodeScalars)
        var items: [Item] = []
        var index = 0
        func isSpace(_ position: Int) -> Bool { scalars[position].properties.isWhitespace }
        while index < scalars.count {
            if isSpace(index) {
                index += 1
                continue
            }
            var item = Item(text: "", excluded: false, star: false)
            if scalars[index] == "-", index + 1 < scalars.count, !isSpace(index + 1) {
                item.excluded = true
                index += 1
            }
            var body = String.UnicodeScalarView()
            if scalars[index] == "\"" {
                index += 1
                while index < scalars.count, scalars[index] != "\"" {
                    body.append(scalars[index])
                    index += 1
                }
                index += 1  // the closing quote, if any
                if index < scalars.count, scalars[index] == "*" {
                    item.star = true
                    index += 1
                }
            } else {
                while index < scalars.count, !isSpace(index), scalars[index] != "\"" {
                    body.append(scalars[index])
                    index += 1
                }
                item.star = body.last == "*"
            }
            item.text = String(body)
            items.append(item)
        }
        return items
    }
}
