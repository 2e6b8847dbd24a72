import ArgumentParser
import Foundation
import GatewayLibraryModel
import GatewayWire

/// `pdfgate info ID`: everything the library knows about one document.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Show one document.")

    @Argument(help: "Document id.")
    var id: String

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let document = try await library.openLibrary().document(id: try parseID(id), owner: library.resolvedOwner)
            if output.json {
                Output.printJSON(DocumentJSON(document))
                return
            }
            let info = document.info
            Output.printTable(
                ["Field", "Value"],
                [
                    ["ID", document.id.uuidString.lowercased()], ["Name", document.name], ["Path", document.relativePath],
                    ["Pages", "\(info.pageCount)"], ["Size", "\(Output.bytes(document.size)) (\(document.size) bytes)"],
                    ["SHA-256", document.sha256], ["Added", Output.iso8601(document.createdAt)], ["Updated", Output.iso8601(document.updatedAt)],
                    ["Title", info.title ?? "-"], ["Author", info.author ?? "-"], ["PDF version", info.pdfVersion],
                    ["Page size", String(format: "%.2f x %.2f pt", info.pageWidth, info.pageHeight)],
                    ["Encrypted", info.encrypted ? "yes" : "no"], ["Linearized", info.linearized ? "yes" : "no"], ["PDF/A", info.pdfa ?? "-"],
                ]
            )
        }
    }
}

/// Ids are UUIDs; say so plainly rather than "not found" for a typo.
func parseID(_ text: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else {
        throw LibraryError(.invalidArgument, "'\(text)' is not an id; ids look like 3f2b…-…, as printed by `pdfgate ls`")
    }
    return id
}
