import ArgumentParser
import Foundation
import GatewayFonts

/// `pdfgate fonts`: the families the converters draw with, as `GET /v1/fonts` lists them.
struct FontsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fonts",
        abstract: "List the font families converters draw with, the scripts each covers, and the substituted ones."
    )

    @Option(help: "A folder of .ttf/.otf/.ttc fonts to list with the system's, as `serve --fonts` adds it.")
    var fonts: String?

    @Flag(help: "Also list the families documents ask for that are drawn with another.")
    var substitutes = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let folder = try fonts.map { path throws(FontFolderError) in try FontFolder(path: path) }
            let directory = FileManager.default.temporaryDirectory.path + "/pdfgate-fonts-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let list = try await FontCatalog(fonts: try ConverterFonts.prepare(in: directory, folder: folder), folder: folder).list()
            if output.json {
                Output.printJSON(list)
                return
            }
            Output.printTable(
                ["Family", "Scripts", "Styles", "From"],
                list.families.map {
                    [$0.family, $0.scripts.joined(separator: ", "), $0.styles.joined(separator: ", "), $0.custom ? "--fonts" : "system"]
                }
            )
            guard substitutes else { return }
            print("")
            Output.printTable(
                ["Asked for", "Drawn with", "Same widths"],
                list.substitutes.map { [$0.family, $0.substitute + ($0.installed ? "" : " (not installed)"), $0.metricCompatible ? "yes" : "no"] }
            )
        }
    }
}
