import Foundation
import GatewayEngine
import GatewayHTTPServing
import GatewayLibraryModel
import GatewayWire
import HTTPTypes
import Hummingbird

/// The phone app's backup protocol: `PUT /v1/documents/{id}` and `PUT /v1/folders/{id}` under
/// the app's own UUIDs, create or replace, guarded by `If-None-Match: *` (create only) and
/// `If-Match: "<version>"` (replace only that version). A stale condition is 412
/// `precondition_failed` with the item as it is now in `current`, and nothing is written.
struct BackupController: Sendable {
    let library: any DocumentLibrary
    let intake: JobIntake
    let links: APILinks
    let maxUploadBytes: Int64

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/documents/{id}", method: .put) { request, context in try await self.putDocument(request, context) }
        group.on("/v1/folders/{id}", method: .put) { request, context in try await self.putFolder(request, context) }
    }

    /// The PDF is the body (or the `file` part of a form); `name` and `folder` (a path or id)
    /// come as query parameters. A new document needs a name; an existing one keeps what is
    /// not given, and identical content is not written again.
    func putDocument(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let id = try Self.clientID(context, "document")
        let precondition = try Self.precondition(request)
        try BodyToFile(maxBytes: maxUploadBytes).checkDeclaredLength(request)
        let (library, maxUploadBytes) = (library, maxUploadBytes)
        do {
            let result = try await intake.receivePDF(owner: owner) { (incoming: String) async throws -> (name: String?, folder: FolderReference?) in
                let (fields, filename) = try await PDFUploadBody.receive(request, to: incoming, maxBytes: maxUploadBytes)
                let name =
                    fields["name"].flatMap { $0.isEmpty ? nil : $0 }
                    ?? filename.map { LibraryNames.documentName(derivedFrom: ($0 as NSString).deletingPathExtension) }
                return (name: name, folder: (fields["folder_id"] ?? fields["folder"]).map(FolderReference.parse))
            } write: { incoming, destination, info in
                try await library.putDocument(
                    id: id,
                    owner: owner,
                    source: incoming,
                    info: info,
                    name: destination.name,
                    folder: destination.folder,
                    precondition: precondition
                )
            }
            var json = links.documentJSON(result.item, base: links.baseURL(for: request))
            json.version = result.version.description
            return try jsonResponse(json, status: result.created ? .created : .ok, headers: Self.etag(result.version))
        } catch let error as LibraryError where error.kind == .preconditionFailed {
            let current = try? await library.document(id: id, owner: owner)
            let version = try? await library.version(ofDocument: id, owner: owner)
            var json = current.map { links.documentJSON($0, base: links.baseURL(for: request)) }
            json?.version = version?.description
            return try Self.preconditionFailed(error, current: json, version: version)
        }
    }

    /// The body is `{"name": …, "parent_id": <uuid or null>}` (or `"parent"`, a path): the
    /// folder's name and where it sits; the root when no parent is given.
    func putFolder(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let id = try Self.clientID(context, "folder")
        let precondition = try Self.precondition(request)
        let body = try await PatchBody(
            request,
            context: context,
            fields: ["name", "parent_id", "parent"],
            route: "a folder backup",
            example: #"{"name": "Receipts", "parent_id": null}"#
        )
        guard let name = try body.string("name") else {
            throw APIError(.badRequest, "invalid_argument", #"a folder needs its name: send {"name": "Receipts", "parent_id": null}"#)
        }
        let parent = try body.folder(idKey: "parent_id", pathKey: "parent")
        do {
            let result = try await library.putFolder(id: id, owner: owner, name: name, parent: parent, precondition: precondition)
            let json = FolderJSON(result.item, version: result.version.description)
            return try jsonResponse(json, status: result.created ? .created : .ok, headers: Self.etag(result.version))
        } catch let error as LibraryError where error.kind == .preconditionFailed {
            let current = try? await library.folder(.id(id), owner: owner)
            let version = try? await library.version(ofFolder: id, owner: owner)
            var json = current.map(FolderJSON.init)
            json?.version = version?.description
            return try Self.preconditionFailed(error, current: json, version: version)
        }
    }

    private static func clientID(_ context: GatewayRequestContext, _ what: String) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else {
            throw APIError(
                .badRequest,
                "invalid_argument",
                "'\(text)' is not a UUID; a \(what) written with PUT takes the client's own UUID as its id"
            )
        }
        return id
    }

    /// `If-None-Match: *` or `If-Match: "<version>"` (or `*`); an ETag this server never gave
    /// matches nothing, as RFC 9110 has it.
    static func precondition(_ request: Request) throws -> WritePrecondition {
        let ifMatch = request.headers[.ifMatch]
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if let ifNoneMatch, ifNoneMatch.trimmingCharacters(in: .whitespaces) != "*" {
            throw APIError(.badRequest, "invalid_argument", "If-None-Match on a write takes only '*' (create only if absent)")
        }
        // Both at once (RFC 9110 §13.2.2 evaluates If-Match first): an item that must be a
        // version and must not exist cannot be written.
        if ifMatch != nil && ifNoneMatch != nil { return .version(ItemVersion(sequence: 0)) }
        if ifNoneMatch != nil { return .absent }
        guard let ifMatch else { return .none }
        let first = ifMatch.split(separator: ",").first.map(String.init) ?? ""
        if first.trimmingCharacters(in: .whitespaces) == "*" { return .exists }
        return .version(ItemVersion(etag: first) ?? ItemVersion(sequence: 0))
    }

    private static func etag(_ version: ItemVersion) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = version.etag
        return headers
    }

    private struct PreconditionFailedJSON<Item: Encodable & Sendable>: Encodable {
        var error: String
        var errorMessage: String
        @NullWhenAbsent var current: Item?

        enum CodingKeys: String, CodingKey {
            case error
            case errorMessage = "error_message"
            case current
        }
    }

    private static func preconditionFailed<Item: Encodable & Sendable>(
        _ error: LibraryError,
        current: Item?,
        version: ItemVersion?
    ) throws -> Response {
        try jsonResponse(
            PreconditionFailedJSON(error: error.code, errorMessage: error.message, current: current),
            status: .preconditionFailed,
            headers: version.map(etag) ?? [:]
        )
    }
}
