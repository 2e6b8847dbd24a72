import Foundation
import GatewayEngine
import GatewayHTTPServing
import GatewayLibraryModel
import GatewayWire
import Hummingbird

/// DESIGN §3.2: the library's documents, through the same `Library` calls as the CLI.
struct DocumentController: Sendable {
    let library: any DocumentLibrary
    let inspector: any PDFInspector
    /// Imports go through its rules.
    let intake: JobIntake
    let links: APILinks
    let maxUploadBytes: Int64
    /// How long a presigned URL lives when a download is answered with one (documents in a
    /// bucket, `--download-redirect`); nil streams the bytes through.
    var downloadRedirect: Duration?

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/documents", method: .get) { request, context in try await self.listDocuments(request, context) }
        group.on("/v1/documents", method: .post) { request, context in try await self.importDocument(request, context) }
        group.on("/v1/documents/{id}", method: .get) { request, context in try await self.getDocument(request, context) }
        group.on("/v1/documents/{id}", method: .patch) { request, context in try await self.updateDocument(request, context) }
        group.on("/v1/documents/{id}", method: .delete) { request, context in try await self.deleteDocument(request, context) }
        group.on("/v1/documents/{id}/content", method: .get) { request, context in try await self.documentContent(request, context) }
        group.on("/v1/documents/{id}/thumbnail", method: .get) { request, context in try await self.documentThumbnail(request, context) }
    }

    private func ownedDocument(_ context: GatewayRequestContext) async throws -> Document {
        let id = try context.parameters.require("id")
        guard let uuid = UUID(uuidString: id) else { throw APIError(.notFound, "document_not_found", "no document with id '\(id)'") }
        return try await library.document(id: uuid, owner: try context.requireOwner())
    }

    private func documentJSON(_ document: Document, request: Request) -> DocumentJSON {
        links.documentJSON(document, base: links.baseURL(for: request))
    }

    func listDocuments(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let sort = try request.query("sort").map { text throws(LibraryError) in try DocumentSort(parsing: text) } ?? DocumentSort(.name)
        let text = request.query("q").flatMap { $0.isEmpty ? nil : $0 }
        let page = try await library.listDocuments(
            DocumentQuery(
                owner: try context.requireOwner(),
                folder: .parse(request.query("folder")),
                // A search looks under the folder too unless told not to; a listing does not.
                recursive: request.query("recursive") == nil ? text != nil : try request.flag("recursive"),
                text: text,
                sort: sort,
                limit: try request.pageLimit(),
                cursor: request.cursor
            )
        )
        // Written by hand: this is the API's busiest large answer (see JSONOutput).
        var out = JSONOutput(capacity: 1200 * page.documents.count + 64)
        page.write(to: &out)
        return jsonResponse(bytes: out.bytes)
    }

    func getDocument(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let document = try await ownedDocument(context)
        var json = documentJSON(document, request: request)
        // The version a backup client sends back in If-Match.
        let version = try await library.version(ofDocument: document.id, owner: document.owner)
        json.version = version.description
        var headers = HTTPFields()
        headers[.eTag] = version.etag
        return try jsonResponse(json, headers: headers)
    }

    func updateDocument(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let document = try await ownedDocument(context)
        let (name, folder, conflict) = try await PatchBody.renameOrMove(request, context, idKey: "folder_id", pathKey: "folder", what: "document")
        let updated = try await library.updateDocument(id: document.id, owner: document.owner, name: name, folder: folder, conflict: conflict)
        return try jsonResponse(documentJSON(updated, request: request))
    }

    func deleteDocument(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let document = try await ownedDocument(context)
        try await library.deleteDocument(id: document.id, owner: document.owner)
        try? FileManager.default.removeItem(atPath: library.thumbnailDirectory(of: document.id))
        return Response(status: .noContent)
    }

    func documentContent(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let document = try await ownedDocument(context)
        if let lifetime = downloadRedirect, let url = library.directDownloadURL(of: document, expires: lifetime) {
            // The object is immutable and named by its hash, so the URL serves exactly this version.
            var headers = HTTPFields()
            headers[.location] = url
            headers[.eTag] = "\"\(document.sha256)\""
            headers[.cacheControl] = "private, no-store"
            return Response(status: .found, headers: headers)
        }
        return try await FileResponse(document: document, in: library).response(for: request, context: context)
    }

    /// A PNG of page 1, rendered once per width and kept under `.pdfgate/thumbnails/<id>/`.
    func documentThumbnail(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let document = try await ownedDocument(context)
        var width = 256
        if let text = request.query("width") {
            guard let value = Int(text), (16...2048).contains(value) else {
                throw APIError(.badRequest, "invalid_argument", "width '\(text)' must be a number of pixels from 16 to 2048")
            }
            width = value
        }
        let directory = library.thumbnailDirectory(of: document.id)
        // The hash in the name: a document whose bytes change never serves a stale picture.
        let path = directory + "/\(document.sha256.prefix(16))-\(width).png"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let temporary = path + ".tmp-\(UUID().lowercased)"
            _ = try await inspector.inspect(
                path: try await library.readableFile(of: document),
                thumbnail: ThumbnailRequest(outputPath: temporary, width: width)
            )
            rename(temporary, path)
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        return try await FileResponse(path: path, contentType: "image/png", etag: "\(document.sha256.prefix(16))-\(width)", size: size, filename: nil)
            .response(for: request, context: context)
    }

    /// `POST /v1/documents`: file an existing PDF, as multipart (`file` part) or a raw body,
    /// through the intake's rules for an import.
    func importDocument(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try BodyToFile(maxBytes: maxUploadBytes).checkDeclaredLength(request)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let readable = ["", "application/pdf", "application/octet-stream", "application/x-pdf", "multipart/form-data"]
        guard readable.contains(where: { $0.isEmpty ? contentType.isEmpty : contentType.hasPrefix($0) }) else {
            throw APIError(
                .unsupportedMediaType,
                "unsupported_media_type",
                "Content-Type '\(contentType)' is not a PDF upload; send the PDF as application/pdf (or octet-stream) or as the 'file' part of multipart/form-data"
            )
        }
        let maxUploadBytes = self.maxUploadBytes
        let document = try await intake.importDocument(owner: try context.requireOwner()) { incoming in
            let (fields, filename) = try await PDFUploadBody.receive(request, to: incoming, maxBytes: maxUploadBytes)
            let conflict =
                try fields["on_conflict"].map { text in
                    guard let policy = ConflictPolicy(rawValue: text) else {
                        throw APIError(.badRequest, "invalid_argument", "on_conflict '\(text)' is not fail or rename")
                    }
                    return policy
                } ?? .fail
            // An empty name is no name, as in a job.
            let given = fields["name"].flatMap { $0.isEmpty ? nil : $0 }
            let name = given ?? LibraryNames.documentName(derivedFrom: filename.map { ($0 as NSString).deletingPathExtension })
            return JobIntake.Destination(folder: fields["folder"], name: name, conflict: conflict)
        }
        return try jsonResponse(documentJSON(document, request: request), status: .created)
    }
}

/// The JSON object body of a library route (a PATCH, a folder create), where a key set to
/// null ("move to the root") differs from a missing key.
struct PatchBody {
    let object: [String: Any]

    /// A JSON object of some of `fields`: an empty body or `{}` changes nothing, so it is
    /// refused (a client that meant a change learns it sent none), as is an unknown key.
    /// `example` is a body that works, for the message.
    init(_ request: Request, context: GatewayRequestContext, fields: Set<String>, route: String, example: String) async throws {
        var request = request
        let data = Data(try await request.collectBody(upTo: context.maxUploadSize).readableBytesView)
        let nothing = APIError(
            .badRequest,
            "invalid_argument",
            "\(route) needs at least one of \(fields.sorted().joined(separator: ", ")), e.g. \(example)"
        )
        guard !data.isEmpty else { throw nothing }
        try JSONBody.checkDepth(data)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw APIError(.badRequest, "invalid_json", "the body must be a JSON object, e.g. \(example)")
        }
        try JSONBody.checkKeys(object.keys, allowed: fields, route: route)
        guard !object.isEmpty else { throw nothing }
        self.object = object
    }

    /// A rename and/or move of a document or folder, the one body both take: `name`, the
    /// destination as `idKey` or `pathKey`, and `on_conflict`.
    static func renameOrMove(
        _ request: Request,
        _ context: GatewayRequestContext,
        idKey: String,
        pathKey: String,
        what: String
    ) async throws -> (name: String?, destination: FolderReference?, conflict: ConflictPolicy) {
        let body = try await PatchBody(
            request,
            context: context,
            fields: ["name", idKey, pathKey, "on_conflict"],
            route: "a \(what) update",
            example: #"{"name": "New name"}"#
        )
        return (try body.string("name"), try body.folder(idKey: idKey, pathKey: pathKey), try body.conflict(request))
    }

    /// A text field, nil when absent; another type is refused rather than ignored.
    func string(_ key: String) throws -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value as? String else { throw APIError(.badRequest, "invalid_argument", "\(key) must be a string") }
        return text
    }

    /// nil: keep the folder; `.root` for an explicit null or "". The id and the path are two
    /// ways to say one thing: both at once is refused, as is either with the wrong type.
    func folder(idKey: String, pathKey: String) throws -> FolderReference? {
        if object[idKey] != nil && object[pathKey] != nil {
            throw APIError(.badRequest, "invalid_argument", "give \(idKey) or \(pathKey), not both")
        }
        if let value = object[idKey] {
            if value is NSNull { return .root }
            guard let text = value as? String else { throw APIError(.badRequest, "invalid_argument", "\(idKey) must be a folder id or null") }
            if text.isEmpty { return .root }
            guard let id = UUID(uuidString: text) else { throw APIError(.badRequest, "invalid_argument", "\(idKey) '\(text)' is not a folder id") }
            return .id(id)
        }
        if let value = object[pathKey] {
            if value is NSNull { return .root }
            guard let text = value as? String else { throw APIError(.badRequest, "invalid_argument", "\(pathKey) must be a folder path") }
            return .parse(text)
        }
        return nil
    }

    /// `on_conflict` from the body or the query (the body's wins; both must be valid); default fail (409).
    func conflict(_ request: Request) throws -> ConflictPolicy {
        let given = [try string("on_conflict"), request.query("on_conflict")].compactMap { $0 }
        var policies: [ConflictPolicy] = []
        for text in given {
            guard let policy = ConflictPolicy(rawValue: text) else {
                throw APIError(.badRequest, "invalid_argument", "on_conflict '\(text)' is not fail or rename")
            }
            policies.append(policy)
        }
        return policies.first ?? .fail
    }
}
