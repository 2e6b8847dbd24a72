import Foundation
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

/// The same library on SQLite and on PostgreSQL answers every query with the same documents,
/// each on the same page with the same snippet: a user moving to a cluster finds what they found
/// before. Only scores differ (bm25 against `ts_rank`), so hits compare by document.
@Suite("Search on SQLite and PostgreSQL agrees")
struct SearchBackendsAgreeTests {
    /// Words drawn for the documents: common and rare ones, accents, a hyphenated word.
    static let vocabulary = [
        "invoice", "total", "amount", "march", "payment", "contract", "signed", "müller", "crème", "brûlée", "e-mail",
        "ledger", "budget", "zurich", "quarterly", "report", "draft", "final", "naïve", "café", "straße", "42", "2026",
    ]

    /// A document's pages: 1 to 7 (past the pages searched in Swift), drawn from `vocabulary`
    /// by a fixed generator so both backends get the same text and a failure repeats.
    static func pages(_ seed: Int) -> [String] {
        var state = UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<(1 + next(7))).map { page in
            page == 2 && seed % 3 == 0 ? "" : (0..<(4 + next(12))).map { _ in vocabulary[next(vocabulary.count)] }.joined(separator: " ")
        }
    }

    static let queries = [
        "invoice", "invoice total", "\"total amount\"", "muller", "MÜLLER creme", "brul*", "e-mail", "naive cafe", "strasse",
        "straße", "42", "ledger -draft", "report -\"final draft\"", "quarterly zurich", "zur*", "signed contract 2026", "Brief",
    ]

    @Test func everyQueryFindsTheSameDocumentsOnTheSamePages() async throws {
        let backends = [try await SearchIndexBackend.sqlite.make(), try await SearchIndexBackend.postgres.make()]
        for search in backends {
            let library = search.library.library
            let archive = try await library.createFolder(path: "Archive", owner: "alice")
            let year = try await library.createFolder(path: "Archive/2026", owner: "alice")
            for seed in 0..<36 {
                let folder: FolderReference = seed % 3 == 0 ? .root : seed % 3 == 1 ? .id(archive.id) : .id(year.id)
                let name = seed % 5 == 0 ? "Brief \(seed) Müller" : "doc \(seed)"
                try await search.file(name, folder: folder, pages: Self.pages(seed))
            }
        }
        for query in Self.queries {
            var answers: [[String]] = []
            for search in backends {
                let archive = try await search.library.library.folder(.path("Archive"), owner: "alice")
                var answer: [String] = []
                for (scope, recursive) in [(nil, true), (archive, true), (archive, false), (nil, false)] as [(Folder?, Bool)] {
                    for hit in try await search.search(query, folder: scope, recursive: recursive) {
                        let name = try await search.library.library.document(id: UUID(uuidString: hit.documentID)!, owner: "alice").name
                        let snippet = hit.snippet.map { $0.match ? "[\($0.text)]" : $0.text }.joined()
                        answer.append("\(scope?.path ?? "/")\(recursive ? "/**" : "") \(name) p\(hit.page ?? 0) \(hit.matchedIn): \(snippet)")
                    }
                }
                answers.append(answer.sorted())
            }
            #expect(!answers[0].isEmpty || ["strasse"].contains(query), "'\(query)' finds something")
            #expect(answers[0] == answers[1], "'\(query)': SQLite \(answers[0]) against PostgreSQL \(answers[1])")
        }
    }
}
