import GatewaySearchText
import Testing

/// The query language, parsed once in Swift: words AND, phrases, prefixes of at least three
/// characters, exclusions, and unicode61's idea of a word.
@Suite("Search query parsing")
struct SearchQueryParsingTests {
    static let cases: [(input: String, expected: String)] = [
        ("invoice", "invoice"),
        ("Invoice  2026", "invoice 2026"),
        ("\"total amount\"", "\"total amount\""),
        ("\"Total   Amount\" due", "\"total amount\" due"),
        ("inv*", "inv*"),
        ("in*", "in"),  // too short for a prefix: the whole word
        ("\"total amo\"*", "\"total amo\"*"),
        ("\"total am\"*", "\"total am\""),
        ("invoice -draft", "invoice -draft"),
        ("invoice -\"first draft\"", "invoice -\"first draft\""),
        ("e-mail", "\"e mail\""),  // split like unicode61
        ("-e-mail invoice", "invoice -\"e mail\""),
        ("Müller", "müller"),  // accents stay; the index folds them
        ("a - b", "a b"),  // a lone dash excludes nothing
        ("\"unclosed phrase", "\"unclosed phrase\""),
        ("abc\"def ghi\"", "abc \"def ghi\""),
        ("invoice *** !!!", "invoice"),  // items without a letter or digit are dropped
        ("--draft ok", "ok -draft"),
        ("C++ 3.14", "c \"3 14\""),
        ("日本語", "日本語"),
    ]

    @Test(arguments: cases)
    func parsesToItsNormalForm(_ input: String, _ expected: String) throws {
        #expect(try SearchQuery(parsing: input).description == expected)
    }

    @Test func termsAreLowerCasedTokensAndKnowTheirKind() throws {
        let query = try SearchQuery(parsing: "Invoice \"TOTAL amount\" kund* -Draft")
        #expect(query.required.map(\.tokens) == [["invoice"], ["total", "amount"], ["kund"]])
        #expect(query.required.map(\.prefix) == [false, false, true])
        #expect(query.required.map(\.isPhrase) == [false, true, false])
        #expect(query.excluded.map(\.tokens) == [["draft"]])
    }

    @Test(arguments: ["", "   ", "\"\"", "- * !?", "\u{0C}\n\t"])
    func nothingToLookForIsRefusedWithHowToWriteOne(_ input: String) {
        let error = #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: input) }
        #expect(error?.code == "invalid_query")
        #expect(error?.message.contains("\"a phrase\"") == true && error?.message.contains("-word") == true, "\(error?.message ?? "")")
    }

    @Test func onlyExclusionsAreRefused() {
        let error = #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: "-draft -\"old copy\"") }
        #expect(error?.code == "invalid_query")
        #expect(error?.message.contains("only excludes") == true)
    }

    @Test func atMost256CharactersAndSixteenTerms() throws {
        _ = try SearchQuery(parsing: String(repeating: "a", count: 256))
        let long = #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: String(repeating: "a", count: 257)) }
        #expect(long?.code == "invalid_query" && long?.message.contains("257") == true)

        let sixteen = (1...16).map { "w\($0)" }.joined(separator: " ")
        #expect(try SearchQuery(parsing: sixteen).required.count == 16)
        let many = #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: sixteen + " -w17") }
        #expect(many?.code == "invalid_query" && many?.message.contains("17 terms") == true)
    }

    @Test func splitsOnAnythingButLettersDigitsAndMarks() {
        #expect(
            SearchTokenizer.tokens(in: "e-mail: jane.doe@example.com, 1,234.56") == ["e", "mail", "jane", "doe", "example", "com", "1", "234", "56"]
        )
        // A decomposed ü (u + combining diaeresis) stays one word, as in FTS5.
        #expect(SearchTokenizer.tokens(in: "Mu\u{0308}ller & Sohn") == ["Mu\u{0308}ller", "Sohn"])
        #expect(SearchTokenizer.fold("MÜLLER") == "muller")
        #expect(SearchTokenizer.fold("Mu\u{0308}ller") == "muller")
        #expect(SearchTokenizer.fold("Crème") == "creme")
    }
}
