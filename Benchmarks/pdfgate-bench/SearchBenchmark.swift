import Foundation
import GatewayAssembly
import GatewayLibraryModel
import GatewayPostgres
import GatewaySearchText
import GatewayStore
import GatewayTestSupport

/// `pdfgate-bench search-seed STORE QUERIES`: gives every document of a seeded library an index
/// entry with text of its own, then writes two-word queries to QUERIES, one per line, for
/// bench-search.sh to send through HTTP.
///
/// The text is varied the way a library's is: 1–3 pages of 80–200 words drawn from 30,000
/// made-up words by Zipf's law (a few words in nearly every document, most in a handful), so a
/// query meets doclists of every length. Each query is two words of one random document's text,
/// so every query has hits, and common words are as likely as they are in the text.
func searchSeed(store: String, queries: String, database: DatabaseChoice = .embedded) async throws {
    let library = try await GatewayStores.open(root: store, database: database, logger: quietLogger).library
    // Many entries per transaction: each index's bulk write.
    let writeAll: @Sendable ([SearchEntry]) async throws -> Void
    switch library.searchIndex {
    case let index as SQLiteSearchIndex: writeAll = index.writeAll
    case let index as PostgresSearchIndex: writeAll = index.writeAll
    default: throw BenchError("the store at \(store) has no search index")
    }
    let documents = try await library.catalog.readyDocuments()
    var random = SeededRandom(seed: 30)
    let words = SyntheticText(words: 30_000)
    var sampled: [String] = []
    let elapsed = try await asyncSeconds {
        var batch: [SearchEntry] = []
        for (number, row) in documents.enumerated() {
            let pages = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                words.sentence(Int.random(in: 80...200), using: &random)
            }
            if number % (documents.count / 200 + 1) == 0 {
                let page = pages[0].split(separator: " ")
                sampled.append("\(page[Int.random(in: 0..<page.count, using: &random)]) \(page[Int.random(in: 0..<page.count, using: &random)])")
            }
            batch.append(SearchEntry(row.record, content: .text(DocumentText(pages: pages), source: .pdf)))
            if batch.count == 2_000 {
                try await writeAll(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try await writeAll(batch)
    }
    try sampled.joined(separator: "\n").appending("\n").write(toFile: queries, atomically: true, encoding: .utf8)
    emit("search.documents", Double(documents.count))
    emit("search.seed_s", elapsed)
    emit("search.queries", Double(sampled.count))
}

/// Made-up words and Zipf-distributed draws from them.
struct SyntheticText {
    let vocabulary: [String]
    /// The cumulative probability of ranks 1…n (s = 1).
    let cumulative: [Double]

    init(words count: Int) {
        let syllables = ["ka", "lo", "mi", "ter", "san", "do", "ri", "ven", "ul", "pa", "gor", "ne", "shi", "tal", "bre", "ox"]
        var seen = Set<String>()
        var vocabulary: [String] = []
        var random = SeededRandom(seed: 7)
        while vocabulary.count < count {
            let word = (0..<Int.random(in: 2...4, using: &random)).map { _ in syllables.randomElement(using: &random)! }.joined()
            if seen.insert(word).inserted { vocabulary.append(word) }
        }
        self.vocabulary = vocabulary
        var total = 0.0
        var cumulative: [Double] = []
        for rank in 1...count {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    func word(using random: inout SeededRandom) -> String {
        let draw = Double.random(in: 0..<1, using: &random)
        var (low, high) = (0, cumulative.count - 1)
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < draw { low = middle + 1 } else { high = middle }
        }
        return vocabulary[low]
    }

    func sentence(_ count: Int, using random: inout SeededRandom) -> String {
        (0..<count).map { _ in word(using: &random) }.joined(separator: " ")
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
