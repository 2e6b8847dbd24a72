import GatewaySearchText
import Testing

/// Both indexes get the same query, each in its own syntax, with nothing left to escape.
@Suite("Search query rendering")
struct SearchQueryRenderingTests {
    static let cases: [(input: String, fts5: String, postgres: String)] = [
        ("invoice", "\"invoice\"", "'invoice'"),
        ("invoice 2026", "\"invoice\" AND \"2026\"", "'invoice' & '2026'"),
        ("\"total amount\"", "\"total amount\"", "('total' <-> 'amount')"),
        ("inv*", "\"inv\"*", "'inv':*"),
        ("\"total amo\"*", "\"total amo\"*", "('total' <-> 'amo':*)"),
        ("invoice -draft", "(\"invoice\") NOT \"draft\"", "'invoice' & !'draft'"),
        (
            "kunde \"e-mail\" -alt -\"old copy\"",
            "(\"kunde\" AND \"e mail\") NOT \"alt\" NOT \"old copy\"",
            "'kunde' & ('e' <-> 'mail') & !'alt' & !('old' <-> 'copy')"
        ),
        ("Müller", "\"müller\"", "'muller'"),
    ]

    @Test(arguments: cases)
    func rendersForFTS5AndPostgreSQL(_ input: String, _ fts5: String, _ postgres: String) throws {
        let query = try SearchQuery(parsing: input)
        #expect(query.fts5MatchText == fts5)
        #expect(query.postgresTSQueryText == postgres)
    }

    @Test func anyRequiredTermForThePageFallback() throws {
        let query = try SearchQuery(parsing: "invoice \"total amount\" kund* -draft")
        #expect(query.fts5AnyRequiredText == "\"invoice\" OR \"total amount\" OR \"kund\"*")
        #expect(query.postgresAnyRequiredText == "'invoice' | ('total' <-> 'amount') | 'kund':*")
    }

    /// Quotes, backslashes, operators and column names typed by the user never reach either
    /// syntax as syntax: only letters and digits come through.
    @Test(arguments: ["name:secret", "a\" OR \"b", "x'); DROP TABLE documents; --", "NEAR(a b) AND c", "a\\\"b", "a|b & !c <-> d:*"])
    func userSyntaxIsOnlyWords(_ input: String) throws {
        let query = try SearchQuery(parsing: input)
        let tokens = (query.required + query.excluded).flatMap(\.tokens)
        #expect(tokens.allSatisfy { $0.unicodeScalars.allSatisfy(SearchTokenizer.isWordScalar) }, "\(tokens)")
        // Every quote in the FTS5 text is one the renderer put there, around a term.
        let quotes = query.fts5MatchText.filter { $0 == "\"" }.count
        #expect(quotes == 2 * (query.required.count + query.excluded.count))
        #expect(!query.postgresTSQueryText.contains("\\") && !query.postgresTSQueryText.contains("\""))
    }
}
