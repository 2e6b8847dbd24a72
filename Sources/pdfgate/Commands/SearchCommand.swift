import ArgumentParser
import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewaySearchText
import GatewayStore
import GatewayWire
import Logging

/// `pdfgate search WORDS…`: the library's documents that say these words, best first, each with
/// the page and a piece of text around the match. Text still waiting to be read (filed while no
/// `pdfgate serve` ran, or a store from before the index) is read first, so the answer is whole.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the library by what its documents say.",
        discussion: """
            Words must all appear; "a phrase" in quotes matches words in a row; inv* matches \
            words starting with inv (3 letters or more); -word leaves out documents with it. \
            Names and titles count, and count most.
            """
    )

    @Argument(help: "What to look for.")
    var words: [String]

    @Option(help: "Only documents in this folder (path or id) and the folders under it.")
    var folder: String?

    @Flag(help: "With --folder: only the folder itself, not the folders under it.")
    var noSubfolders = false

    @Option(help: "Hits per page (1–1000).")
    var limit = 20

    @Option(help: "Continue after this cursor (printed at the end of the previous page).")
    var cursor: String?

    @OptionGroup var library: LibraryOptions
    @OptionGroup var inspector: InspectorOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            // Text no server has read yet (or none runs): read first, so the search is whole.
            let waiting = try await store.searchIndex.status(owner: nil).pending
            if waiting > 0 {
                if !output.json { Output.printError("reading the text of \(waiting) documents first…") }
                try await inspector.withInspector { pool in
                    let indexer = SearchIndexer(library: store, index: store.searchIndex, inspector: pool, logger: Logger(label: "pdfgate.search"))
                    try await indexer.indexPending()
                }
            }
            let page = try await store.listDocuments(
                DocumentQuery(
                    owner: library.resolvedOwner,
                    folder: .parse(folder),
                    recursive: !noSubfolders,
                    text: words.joined(separator: " "),
                    limit: limit,
                    cursor: cursor
                )
            )
            if output.json {
                var out = JSONOutput()
                page.write(to: &out)
                Output.printJSON(bytes: out.bytes)
                return
            }
            let owner = library.resolvedOwner
            let hits = page.search?.hits ?? []
            var rows: [[String]] = []
            for (index, document) in page.documents.enumerated() {
                let hit = index < hits.count ? hits[index] : nil
                let path = String(document.relativePath.dropFirst(owner.count + 1))
                let pageNumber = hit?.page.map { String($0) } ?? ""
                rows.append([document.id.uuidString.lowercased(), path, pageNumber, Self.snippet(hit?.snippet ?? [])])
            }
            if rows.isEmpty { print("no documents say that") } else { Output.printTable(["ID", "PATH", "PAGE", "TEXT"], rows) }
            if let search = page.search, search.capped {
                print("only the newest \(search.rankedAmong) matching documents were ranked; add words to narrow the search")
            }
            if let next = page.nextCursor { print("more: pdfgate search --cursor \(next) \(words.joined(separator: " "))") }
        }
    }

    /// A snippet on one line, the matching words in [brackets].
    static func snippet(_ segments: [SnippetSegment]) -> String {
        segments.map { $0.match ? "[" + $0.text + "]" : $0.text }.joined()
            .split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
