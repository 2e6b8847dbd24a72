import ArgumentParser
import Foundation
import GatewayLibraryModel

/// `pdfgate inspect FILE`: what Poppler reads from a PDF, without filing it.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a PDF's page count and metadata without filing it."
    )

    @Argument(help: "The PDF to inspect.")
    var file: String

    @Option(help: "Also render page 1 as a PNG to this path.")
    var thumbnail: String?

    @Option(help: "Thumbnail width in pixels.")
    var width = 256

    @OptionGroup var output: OutputOptions
    @OptionGroup var inspector: InspectorOptions

    func run() async throws {
        try await reporting(json: output.json) {
            guard (8...4096).contains(width) else {
                throw ValidationError("--width must be between 8 and 4096 pixels")
            }
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            let request = thumbnail.map { ThumbnailRequest(outputPath: URL(fileURLWithPath: $0).standardizedFileURL.path, width: width) }
            let info = try await inspector.withInspector { try await $0.inspect(path: path, thumbnail: request) }
            if output.json {
                Output.printJSON(info)
                return
            }
            var rows: [[String]] = [
                ["Pages", "\(info.pageCount)"], ["Title", info.title ?? "-"], ["Author", info.author ?? "-"],
                ["Subject", info.subject ?? "-"], ["Keywords", info.keywords ?? "-"], ["Creator", info.creator ?? "-"],
                ["Producer", info.producer ?? "-"], ["Created", info.createdAt.map(Output.iso8601) ?? "-"],
                ["Modified", info.modifiedAt.map(Output.iso8601) ?? "-"], ["PDF version", info.pdfVersion],
                ["Page size", String(format: "%.2f x %.2f pt", info.pageWidth, info.pageHeight)],
                ["Encrypted", info.encrypted ? "yes" : "no"], ["Linearized", info.linearized ? "yes" : "no"],
                ["PDF/A", info.pdfa ?? "-"],
            ]
            if let request { rows.append(["Thumbnail", request.outputPath]) }
            Output.printTable(["Field", "Value"], rows)
        }
    }
}
