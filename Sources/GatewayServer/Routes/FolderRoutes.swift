import Foundation
import GatewayHTTPServing
import GatewayLibraryModel
import GatewayWire
import Hummingbird

/// DESIGN §3.2: folders — real directories with stable ids.
struct FolderController: Sendable {
    let library: any DocumentLibrary

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/folders", method: .get) { request, context in try await self.listFolders(request, context) }
        group.on("/v1/folders", method: .post) { request, context in try await self.createFolder(request, context) }
        group.on("/v1/folders/{id}", method: .get) { request, context in try await self.getFolder(request, context) }
        group.on("/v1/folders/{id}", method: .patch) { request, context in try await self.updateFolder(request, context) }
        group.on("/v1/folders/{id}", method: .delete) { request, context in try await self.deleteFolder(request, context) }
    }

    private func folderID(_ context: GatewayRequestContext) throws -> UUID {
        let id = try context.parameters.require("id")
        guard let uuid = UUID(uuidString: id) else { throw APIError(.notFound, "folder_not_found", "no folder with id '\(id)'") }
        return uuid
    }

    private func ownedFolder(_ context: GatewayRequestContext) async throws -> Folder {
        let id = try folderID(context)
        guard let folder = try await library.folder(.id(id), owner: try context.requireOwner()) else {
            throw APIError(.notFound, "folder_not_found", "no folder with id '\(id.lowercased)'")
        }
        return folder
    }

    func listFolders(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let folders = try await library.listFolders(
            owner: try context.requireOwner(),
            parent: .parse(request.query("parent")),
            recursive: try request.flag("recursive")
        )
        return try jsonResponse(["folders": folders.map(FolderJSON.init)])
    }

    func createFolder(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let body = try await PatchBody(
            request,
            context: context,
            fields: ["path", "name", "parent_id", "parent"],
            route: "a folder create",
            example: #"{"path": "Invoices/2026"}"#
        )
        let path: String
        if let given = try body.string("path") {
            guard body.object.count == 1 else {
                throw APIError(
                    .badRequest,
                    "invalid_argument",
                    "a path says where the folder goes: send {\"path\": \"A/B\"} alone, or a name and its parent"
                )
            }
            path = given
        } else if let name = try body.string("name") {
            var parentPath = ""
            if let parent = try body.folder(idKey: "parent_id", pathKey: "parent"), parent != .root {
                guard let folder = try await library.folder(parent, owner: owner) else {
                    throw APIError(.notFound, "folder_not_found", "the parent folder does not exist")
                }
                parentPath = folder.path
            }
            path = parentPath.isEmpty ? name : parentPath + "/" + name
        } else {
            throw APIError(.badRequest, "invalid_argument", "send {\"path\": \"A/B\"} or {\"name\": \"B\", \"parent_id\": \"…\"}")
        }
        return try jsonResponse(FolderJSON(try await library.createFolder(path: path, owner: owner)), status: .created)
    }

    func getFolder(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let folder = try await ownedFolder(context)
        // The version a backup client sends back in If-Match.
        let version = try await library.version(ofFolder: folder.id, owner: folder.owner)
        let json = FolderJSON(folder, version: version.description)
        var headers = HTTPFields()
        headers[.eTag] = version.etag
        return try jsonResponse(json, headers: headers)
    }

    func updateFolder(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let folder = try await ownedFolder(context)
        let (name, parent, conflict) = try await PatchBody.renameOrMove(request, context, idKey: "parent_id", pathKey: "parent", what: "folder")
        let updated = try await library.updateFolder(.id(folder.id), owner: folder.owner, name: name, parent: parent, conflict: conflict)
        return try jsonResponse(FolderJSON(updated))
    }

    func deleteFolder(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let folder = try await ownedFolder(context)
        let recursive = try request.flag("recursive")
        try await library.deleteFolder(.id(folder.id), owner: folder.owner, recursive: recursive)
        return Response(status: .noContent)
    }
}
