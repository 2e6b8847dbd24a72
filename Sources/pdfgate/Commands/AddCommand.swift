import ArgumentParser
import Foundation
import GatewayCore
import GatewayEngine
import GatewayLibraryModel
import GatewayWire

/// `pdfgate add FILE...`: inspect each PDF and file a copy of it in the library.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "File PDFs into the library (each is inspected first; the originals stay unless --move)."
    )

    @Argument(help: "PDF files to add.")
    var files: [String]

    @Option(help: "Folder path (created if missing) or folder id. Default: the root.")
    var folder: String?

    @Option(help: "Document name (only with a single file). Default: the file name without .pdf.")
    var name: String?

    @Option(help: "When the name is taken: fail, or rename to 'Name 01', 'Name 02', ….")
    var onConflict: ConflictPolicy = .fail

    @Flag(help: "Take the files instead of copying them (a rename when on the store's file system).")
    var move = false

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var inspector: InspectorOptions

    func validate() throws {
        if name != nil && files.count > 1 { throw ValidationError("--name applies to a single file; drop it to use each file's name") }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            var added: [Document] = []
            var failures = 0
            try await inspector.withInspector { pool in
                for file in files {
                    let path = URL(fileURLWithPath: file).standardizedFileURL.path
                    do {
                        let info = try await KeptPDF.info(of: path, inspector: pool)
                        await added.append(
                            try store.file(
                                path,
                                mode: move ? .move : .copy,
                                owner: library.resolvedOwner,
                                folder: FolderReference.parse(folder),
                                name: name,
                                conflict: onConflict,
                                info: info
                            )
                        )
                    } catch let error as any GatewayError where files.count > 1 {
                        // Keep going so one bad file does not block the rest; the exit status tells.
                        Output.printError("\(file): \(error.message) [\(error.code)]")
                        failures += 1
                    }
                }
            }
            if output.json {
                Output.printJSON(added.map(DocumentJSON.init))
            } else {
                Output.printTable(
                    ["ID", "PATH", "PAGES", "SIZE"],
                    added.map { [$0.id.uuidString.lowercased(), $0.relativePath, "\($0.info.pageCount)", Output.bytes($0.size)] }
                )
            }
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
