import Foundation
import GatewayHTTPServing
import GatewayLibraryModel
import HTTPTypes
import Hummingbird

extension DAVController {
    /// A PDF dropped at `<folder>/<name>.pdf` is filed as it is, byte for byte (or takes the
    /// place of the document of that name, which keeps its id). Any other file is kept as it is
    /// beside the documents (`DAVFileStore`).
    func put(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        guard let fileName = path.name else {
            throw APIError(.methodNotAllowed, "dav_put_on_collection", "PUT writes a file; the root is a folder")
        }
        let folder = try await existingParent(of: path, owner: owner)
        let existing = try await resolve(path, owner: owner)
        if case .folder? = existing {
            throw APIError(.methodNotAllowed, "dav_put_on_collection", "\(path) is a folder; PUT a file into it instead")
        }
        try await checkWritable(request, owner: owner, path: path, targets: [path], deep: false, members: existing == nil ? [path.parent] : [])
        let receiver = BodyToFile(maxBytes: maxUploadBytes)
        try receiver.checkDeclaredLength(request)
        guard let name = DAVNames.documentName(fileName) else {
            let folderID = try await library.folder(folder, owner: owner)?.id
            let created = try await files.write(request.body, owner: owner, folderID: folderID, name: fileName, maxBytes: maxUploadBytes)
            if convertsDroppedFiles, DAVConversions.converts(fileName), let file = files.file(owner: owner, folderID: folderID, name: fileName) {
                await conversions.start(file, owner: owner)
            }
            return Response(status: created ? .created : .noContent)
        }
        let library = library
        let result = try await intake.receivePDF(owner: owner) { incoming in
            _ = try await receiver.write(request.body, to: incoming)
        } write: { incoming, _, info in
            // Filed under a fresh id, or in place of the document of that name, which keeps its id.
            let existing = try await library.document(named: name, in: folder, owner: owner)
            return try await library.putDocument(
                id: existing?.id ?? UUID(),
                owner: owner,
                source: incoming,
                info: info,
                name: name,
                folder: folder,
                precondition: .none
            )
        }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(result.item.sha256)\""
        return Response(status: result.created ? .created : .noContent, headers: headers)
    }

    func mkcol(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var bodyBytes = 0
        for try await buffer in request.body { bodyBytes += buffer.readableBytes }
        guard bodyBytes == 0 else {
            throw APIError(.unsupportedMediaType, "dav_mkcol_body", "MKCOL takes no body; send it empty")
        }
        guard !path.isRoot else { throw APIError(.methodNotAllowed, "dav_exists", "the root folder always exists") }
        _ = try await existingParent(of: path, owner: owner)
        if try await resolve(path, owner: owner) != nil {
            throw APIError(.methodNotAllowed, "dav_exists", "\(path) already exists; MKCOL only creates")
        }
        try await library.createFolder(path: path.folderPath, owner: owner)
        return Response(status: .created)
    }

    func delete(_ path: DAVPath, owner: String) async throws -> Response {
        guard let resource = try await resolve(path, owner: owner) else { throw Self.notFound(path) }
        switch resource {
        case .root:
            throw APIError(.forbidden, "dav_root", "the root folder cannot be deleted")
        case .folder(let folder):
            let inside = try await library.listFolders(owner: owner, parent: .id(folder.id), recursive: true).map(\.id)
            try await library.deleteFolder(.id(folder.id), owner: owner, recursive: true)
            files.deleteFolders(owner: owner, [folder.id] + inside)
        case .document(let document):
            try await library.deleteDocument(id: document.id, owner: owner)
            try? FileManager.default.removeItem(atPath: library.thumbnailDirectory(of: document.id))
        case .file(let file):
            try files.delete(owner: owner, folderID: file.folderID, name: file.name)
        }
        // Only once the item is gone: a delete the library refused keeps its properties.
        properties.remove(at: properties.key(resource, owner: owner))
        return Response(status: .noContent)
    }

    /// MOVE renames or moves (a document keeps its id); COPY makes new documents. Over an
    /// existing destination: 412 with `Overwrite: F`, else it is deleted through the library
    /// first, as RFC 4918 §9.8.4 and §9.9.3 have it.
    func moveOrCopy(_ path: DAVPath, owner: String, _ request: Request, copying: Bool) async throws -> Response {
        let destination = try Self.destination(request)
        let overwrite = request.headers[HTTPField.Name("Overwrite")!]?.trimmingCharacters(in: .whitespaces).uppercased() != "F"
        guard let source = try await resolve(path, owner: owner) else { throw Self.notFound(path) }
        if case .root = source { throw APIError(.forbidden, "dav_root", "the root folder cannot be moved or copied") }
        guard destination != path else {
            throw APIError(.forbidden, "dav_same_place", "the destination is the source itself; name another place")
        }
        if source.isCollection, destination.isWithin(path) {
            throw APIError(.forbidden, "dav_into_itself", "a folder cannot go inside itself; choose a destination outside \(path)")
        }
        let parent = try await existingParent(of: destination, owner: owner)
        guard let newName = destination.name else { throw APIError(.forbidden, "dav_root", "the root cannot be replaced") }

        let existing = try await resolve(destination, owner: owner)
        if existing != nil {
            guard overwrite else {
                throw APIError(
                    .preconditionFailed,
                    "dav_destination_exists",
                    "\(destination) exists and Overwrite is F; delete it first or allow overwriting"
                )
            }
            _ = try await delete(destination, owner: owner)
        }
        switch source {
        case .document(let document):
            guard let name = DAVNames.documentName(newName) else {
                throw APIError(.forbidden, "dav_not_a_pdf_name", "a document's name ends in .pdf; name the destination '<name>.pdf'")
            }
            if copying {
                let copy = try await library.copyDocument(id: document.id, owner: owner, to: parent, name: name)
                try properties.copy(from: properties.key(source, owner: owner), to: properties.key(.document(copy), owner: owner))
            } else {
                try await library.updateDocument(id: document.id, owner: owner, name: name, folder: parent, conflict: .fail)
            }
        case .file(let file):
            guard DAVNames.documentName(newName) == nil else {
                throw APIError(.forbidden, "dav_not_a_pdf", "only PDFs take a '.pdf' name here; give \(file.name) another name")
            }
            let folderID = try await library.folder(parent, owner: owner)?.id
            var moved = file
            (moved.folderID, moved.name) = (folderID, newName)
            if copying {
                try files.copy(file, owner: owner, toFolder: folderID, name: newName)
            } else {
                try files.move(file, owner: owner, toFolder: folderID, name: newName)
            }
            try properties.copy(from: properties.key(source, owner: owner), to: properties.key(.file(moved), owner: owner))
            if !copying { properties.remove(at: properties.key(source, owner: owner)) }
        case .folder(let folder):
            if copying {
                try await copyFolder(folder, to: destination, owner: owner, depth: request.headers[HTTPField.Name("Depth")!])
            } else {
                try await library.updateFolder(.id(folder.id), owner: owner, name: newName, parent: parent, conflict: .fail)
            }
        case .root:
            break
        }
        return Response(status: existing == nil ? .created : .noContent)
    }

    /// Copies a folder and (unless `Depth: 0`) everything in it: new folders, new documents.
    private func copyFolder(_ folder: Folder, to destination: DAVPath, owner: String, depth: String?) async throws {
        let copy = try await library.createFolder(path: destination.folderPath, owner: owner)
        try properties.copy(from: properties.key(.folder(folder), owner: owner), to: properties.key(.folder(copy), owner: owner))
        guard depth?.trimmingCharacters(in: .whitespaces) != "0" else { return }
        var cursor: String?
        repeat {
            let page = try await library.listDocuments(DocumentQuery(owner: owner, folder: .id(folder.id), limit: 1000, cursor: cursor))
            for document in page.documents {
                let copied = try await library.copyDocument(id: document.id, owner: owner, to: .id(copy.id), name: document.name)
                try properties.copy(from: properties.key(.document(document), owner: owner), to: properties.key(.document(copied), owner: owner))
            }
            cursor = page.nextCursor
        } while cursor != nil
        for file in files.files(owner: owner, folderID: folder.id) {
            try files.copy(file, owner: owner, toFolder: copy.id, name: file.name)
            var copied = file
            copied.folderID = copy.id
            try properties.copy(from: properties.key(.file(file), owner: owner), to: properties.key(.file(copied), owner: owner))
        }
        for child in try await library.listFolders(owner: owner, parent: .id(folder.id), recursive: false) {
            try await copyFolder(child, to: destination.appending(child.name), owner: owner, depth: depth)
        }
    }

    /// The id of the folder `path` goes in (nil for the root), which must exist.
    func existingParentFolderID(of path: DAVPath, owner: String) async throws -> UUID? {
        if case .id(let id) = try await existingParent(of: path, owner: owner) { return id }
        return nil
    }

    /// The folder `path` goes in, which must exist (409 otherwise, RFC 4918 §9.7.1).
    func existingParent(of path: DAVPath, owner: String) async throws -> FolderReference {
        let parent = path.parent
        switch try await resolve(parent, owner: owner) {
        case .root?: return .root
        case .folder(let folder)?: return .id(folder.id)
        case .document?, .file?, nil:
            throw APIError(.conflict, "dav_no_parent", "the folder \(parent) does not exist; create it first with MKCOL")
        }
    }

    /// The `Destination` header's path: an absolute URL or an absolute path under `/dav/`.
    static func destination(_ request: Request) throws -> DAVPath {
        guard let header = request.headers[HTTPField.Name("Destination")!]?.trimmingCharacters(in: .whitespaces), !header.isEmpty else {
            throw APIError(.badRequest, "dav_destination_required", "MOVE and COPY need a Destination header naming the new place")
        }
        var target = Substring(header)
        if let scheme = target.range(of: "://") {
            let afterHost = target[scheme.upperBound...]
            target = afterHost.firstIndex(of: "/").map { afterHost[$0...] } ?? "/"
        }
        return try DAVPath(target: String(target))
    }
}
