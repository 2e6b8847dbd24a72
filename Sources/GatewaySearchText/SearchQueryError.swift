import GatewayCore

/// A search the index cannot run, with how to write one that it can. Always `invalid_query`.
///
/// Its own type rather than a `LibraryError` kind: the HTTP layer maps every `GatewayError` it
/// does not know to 400 with the error's code, which is this error's answer, while a new
/// `LibraryError.Kind` would have to be added to that layer's exhaustive switch first.
public struct SearchQueryError: GatewayError, Equatable {
    public var code: String { "invalid_query" }
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    static let howToWrite =
        "write words to find (all must appear), \"a phrase\" in quotes, a prefix such as inv* (at least \(SearchQuery.minPrefixCharacters) letters), and -word to exclude one"

    static let empty = SearchQueryError("the search has no words to look for; \(howToWrite)")
    static let onlyExclusions = SearchQueryError(
        "the search only excludes words (-word); add at least one word to look for, e.g. invoice -draft"
    )

    static func tooLong(_ characters: Int) -> SearchQueryError {
        SearchQueryError("the search is \(characters) characters long; at most \(SearchQuery.maxCharacters) are allowed")
    }

    static func tooManyTerms(_ terms: Int) -> SearchQueryError {
        SearchQueryError(
            "the search has \(terms) terms (words, phrases and exclusions); at most \(SearchQuery.maxTerms) are allowed, so keep the most telling ones"
        )
    }
}
