import ArgumentParser
import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore
import GatewayWire

/// What `rename` and `mv` act on: a document id, else a folder id or path.
enum Target {
    case document(UUID)
    case folder(FolderReference)

    static func resolve(_ text: String, in library: Library, owner: String) async throws -> Target {
        if let id = UUID(uuidString: text) {
            if (try? await library.document(id: id, owner: owner)) != nil { return .document(id) }
            if (try? await library.folder(.id(id), owner: owner)) != nil { return .folder(.id(id)) }
            throw LibraryError(
                .documentNotFound,
                "no document or folder with id \(id.uuidString.lowercased()); list them with `pdfgate ls --recursive`"
            )
        }
        // Throws folder_not_found now, before a command changes anything.
        _ = try await library.folder(.path(text), owner: owner)
        return .folder(.path(text))
    }
}

/// Prints what a rename or move produced.
func report(_ result: Either, json: Bool) {
    switch result {
    case .document(let document):
        if json { Output.printJSON(DocumentJSON(document)) } else { print("\(document.id.uuidString.lowercased())  \(document.relativePath)") }
    case .folder(let folder):
        if json { Output.printJSON(FolderJSON(folder)) } else { print("\(folder.id.uuidString.lowercased())  \(folder.owner)/\(folder.path)/") }
    }
}

enum Either {
    case document(Document)
    case folder(Folder)
}

/// `pdfgate rename ID NAME`: a new name, same id.
struct RenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a document or folder (its id stays).")

    @Argument(help: "Document id, folder id or folder path.") var target: String
    @Argument(help: "The new name.") var name: String
    @Option(help: "When the name is taken: fail, or rename to 'Name 01', ….") var onConflict: ConflictPolicy = .fail
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            let owner = library.resolvedOwner
            switch try await Target.resolve(target, in: store, owner: owner) {
            case .document(let id):
                await report(.document(try store.updateDocument(id: id, owner: owner, name: name, conflict: onConflict)), json: output.json)
            case .folder(let reference):
                await report(.folder(try store.updateFolder(reference, owner: owner, name: name, conflict: onConflict)), json: output.json)
            }
        }
    }
}

/// `pdfgate mv ID FOLDER`: a new folder, same id.
struct MoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mv", abstract: "Move a document or folder into another folder (its id stays).")

    @Argument(help: "Document id, folder id or folder path.") var target: String
    @Argument(help: "Destination folder path or id ('/' for the root; created if it is a path that does not exist).") var folder: String
    @Option(help: "When the name is taken there: fail, or rename to 'Name 01', ….") var onConflict: ConflictPolicy = .fail
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            let owner = library.resolvedOwner
            // Resolve what moves first: a mistyped id must not leave a new, empty destination behind.
            let moving = try await Target.resolve(target, in: store, owner: owner)
            var destination = FolderReference.parse(folder)
            if case .path(let path) = destination { destination = await .id(try store.createFolder(path: path, owner: owner).id) }
            switch moving {
            case .document(let id):
                await report(.document(try store.updateDocument(id: id, owner: owner, folder: destination, conflict: onConflict)), json: output.json)
            case .folder(let reference):
                await report(.folder(try store.updateFolder(reference, owner: owner, parent: destination, conflict: onConflict)), json: output.json)
            }
        }
    }
}

/// `pdfgate rm ID...`: delete documents.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete documents.")

    @Argument(help: "Document ids.") var ids: [String]
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let store = try await library.openLibrary()
            for id in ids { try await store.deleteDocument(id: try parseID(id), owner: library.resolvedOwner) }
            if output.json { Output.printJSON(["deleted": ids.map { $0.lowercased() }]) }
        }
    }
}

/// `pdfgate mkdir PATH`: create a folder and its parents.
struct MakeFolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mkdir", abstract: "Create a folder (and missing parents).")

    @Argument(help: "Folder path, e.g. Invoices/2026.") var path: String
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            await report(.folder(try library.openLibrary().createFolder(path: path, owner: library.resolvedOwner)), json: output.json)
        }
    }
}

/// `pdfgate rmdir PATH`: delete a folder, empty unless `--recursive`.
struct RemoveFolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rmdir", abstract: "Delete a folder (only if empty, unless --recursive).")

    @Argument(help: "Folder path or id.") var folder: String
    @Flag(help: "Delete everything in it too.") var recursive = false
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let reference = FolderReference.parse(folder)
            guard reference != .root else { throw LibraryError(.invalidArgument, "the root folder cannot be deleted") }
            try await library.openLibrary().deleteFolder(reference, owner: library.resolvedOwner, recursive: recursive)
            if output.json { Output.printJSON(["deleted": folder]) }
        }
    }
}
