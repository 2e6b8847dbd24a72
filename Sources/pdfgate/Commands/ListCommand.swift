import ArgumentParser
import Foundation
import GatewayLibraryModel
import GatewayWire

/// `pdfgate ls [FOLDER]`: the folders and one page of documents in a folder.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List folders and documents.")

    @Argument(help: "Folder path or id. Default: the root.")
    var folder: String?

    @Flag(name: [.short, .long], help: "Include everything below the folder.")
    var recursive = false

    // Unconditional, so that `--sort -size` reads the value rather than an unknown option.
    @Option(parsing: .unconditional, help: "Sort by name, created_at, updated_at, size or page_count; prefix '-' for descending.")
    var sort = "name"

    @Option(help: "Documents per page (1–1000).")
    var limit = 50

    @Option(help: "Continue after this cursor (printed at the end of the previous page).")
    var cursor: String?

    @Option(help: "Only documents whose name or title contains this text.")
    var search: String?

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    struct ListingJSON: Encodable {
        var folders: [FolderJSON]
        var documents: [DocumentJSON]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case folders, documents
            case nextCursor = "next_cursor"
        }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            let owner = library.resolvedOwner
            let reference = FolderReference.parse(folder)
            let query = DocumentQuery(
                owner: owner,
                folder: reference,
                recursive: recursive,
                search: search,
                sort: try DocumentSort(parsing: sort),
                limit: limit,
                cursor: cursor
            )
            let page = try await store.listDocuments(query)
            // Folders belong to the first page only, so paging through documents does not repeat them.
            let folders = await cursor == nil ? try store.listFolders(owner: owner, parent: reference, recursive: recursive) : []
            if output.json {
                Output.printJSON(
                    ListingJSON(folders: folders.map(FolderJSON.init), documents: page.documents.map(DocumentJSON.init), nextCursor: page.nextCursor)
                )
                return
            }
            let rows =
                folders.map { [$0.id.uuidString.lowercased(), $0.path + "/", "", "", Output.shortDate($0.updatedAt)] }
                + page.documents.map {
                    [
                        $0.id.uuidString.lowercased(), String($0.relativePath.dropFirst(owner.count + 1)), "\($0.info.pageCount)",
                        Output.bytes($0.size), Output.shortDate($0.updatedAt),
                    ]
                }
            Output.printTable(["ID", "PATH", "PAGES", "SIZE", "UPDATED"], rows)
            if let next = page.nextCursor { print("more: pdfgate ls --cursor \(next)") }
        }
    }
}
