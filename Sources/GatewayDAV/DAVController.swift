import Foundation
import GatewayEngine
import GatewayHTTPServing
import GatewayLibraryModel
import HTTPTypes
import Hummingbird

/// WebDAV (RFC 4918) at `/dav/`, over the caller's library: folders are collections and each
/// document is `<name>.pdf`. Every write goes through the library as the API's do, so a move
/// keeps the document's id, and all of it is crash-safe and in the change feed.
public struct DAVController: Sendable {
    let library: any DocumentLibrary
    let intake: JobIntake
    let maxUploadBytes: Int64
    let files: DAVFileStore
    let properties: DAVPropertyStore
    let locks: DAVLockStore
    let conversions: DAVConversions

    let convertsDroppedFiles: Bool

    public init(library: any DocumentLibrary, intake: JobIntake, engine: JobEngine, maxUploadBytes: Int64, convertsDroppedFiles: Bool = true) {
        self.convertsDroppedFiles = convertsDroppedFiles
        self.library = library
        self.intake = intake
        self.maxUploadBytes = maxUploadBytes
        files = DAVFileStore(metaDirectory: library.metaDirectory)
        properties = DAVPropertyStore(metaDirectory: library.metaDirectory)
        locks = DAVLockStore(metaDirectory: library.metaDirectory)
        conversions = DAVConversions(files: files, intake: intake, engine: engine)
    }

    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let proppatch = HTTPRequest.Method("PROPPATCH")!
    static let mkcol = HTTPRequest.Method("MKCOL")!
    static let move = HTTPRequest.Method("MOVE")!
    static let copy = HTTPRequest.Method("COPY")!
    static let lock = HTTPRequest.Method("LOCK")!
    static let unlock = HTTPRequest.Method("UNLOCK")!
    static let multiStatus = HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status")
    static let methods: [HTTPRequest.Method] = [
        .options, .get, .head, .put, .delete, propfind, proppatch, mkcol, move, copy, lock, unlock, report,
    ]

    public func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        for method in Self.methods {
            for path in ["/dav", "/dav/**"] {
                group.on(RouterPath(path), method: method) { request, context in try await self.handle(request, context) }
            }
        }
    }

    func handle(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let path = try DAVPath(target: request.head.path ?? "/dav/")
        switch request.method {
        case .options: return options()
        case .get, .head: return try await get(path, owner: owner, request, context)
        case Self.propfind: return try await propfind(path, owner: owner, request, context)
        case Self.proppatch: return try await proppatch(path, owner: owner, request, context)
        case .put: return try await put(path, owner: owner, request, context)
        case .delete:
            try await checkWritable(request, owner: owner, path: path, targets: [path], deep: true, members: [path.parent])
            let answer = try await delete(path, owner: owner)
            try dropLocks(under: path, owner: owner)
            return answer
        case Self.mkcol:
            try await checkWritable(request, owner: owner, path: path, targets: [path], deep: false, members: [path.parent])
            return try await mkcol(path, owner: owner, request, context)
        case Self.move, Self.copy:
            let copying = request.method == Self.copy
            let destination = try Self.destination(request)
            let changed = copying ? [destination] : [path, destination]
            let members = copying ? [destination.parent] : [path.parent, destination.parent]
            try await checkWritable(request, owner: owner, path: path, targets: changed, deep: true, members: members)
            let answer = try await moveOrCopy(path, owner: owner, request, copying: copying)
            if !copying { try dropLocks(under: path, owner: owner) }
            return answer
        case Self.lock: return try await lock(path, owner: owner, request, context)
        case Self.unlock: return try unlock(path, owner: owner, request)
        case Self.report: return try await report(path, owner: owner, request, context)
        default: throw APIError(.methodNotAllowed, "method_not_allowed", "\(request.method) is not served at \(DAVPath.mount)/")
        }
    }

    private func options() -> Response {
        var headers = HTTPFields()
        headers[HTTPField.Name("DAV")!] = "1, 2"
        headers[.allow] = Self.methods.map(\.rawValue).joined(separator: ", ")
        headers[HTTPField.Name("MS-Author-Via")!] = "DAV"
        return Response(status: .ok, headers: headers)
    }

    // MARK: Reading

    /// What `path` names: a folder (or the root), a document, or nothing.
    func resolve(_ path: DAVPath, owner: String) async throws -> DAVResource? {
        if path.isRoot { return .root }
        let reference = path.folderReference
        if let folder = try await Self.unlessFolderMissing({ () async throws(LibraryError) -> Folder? in
            try await library.folder(reference, owner: owner)
        }) ?? nil {
            return .folder(folder)
        }
        guard let fileName = path.name else { return nil }
        let parent = path.parent.folderReference
        if let name = DAVNames.documentName(fileName) {
            return try await Self.unlessFolderMissing({ () async throws(LibraryError) -> Document? in
                try await library.document(named: name, in: parent, owner: owner)
            })?
            .map(DAVResource.document)
        }
        guard
            let folder = try await Self.unlessFolderMissing({ () async throws(LibraryError) -> Folder? in
                try await library.folder(parent, owner: owner)
            })
        else { return nil }
        return files.file(owner: owner, folderID: folder?.id, name: fileName).map(DAVResource.file)
    }

    /// `body`'s value, or nil when it throws `folder_not_found`: here a missing folder only
    /// means the path names something else, or nothing.
    private static func unlessFolderMissing<T>(_ body: () async throws(LibraryError) -> T) async throws -> T? {
        let result: Result<T, LibraryError>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        switch result {
        case .success(let value): return value
        case .failure(let error) where error.kind == .folderNotFound: return nil
        case .failure(let error): throw error
        }
    }

    private func get(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        switch try await resolve(path, owner: owner) {
        case .document(let document)?:
            var response = try await FileResponse(document: document, in: library).response(for: request, context: context)
            response.headers[.lastModified] = DAVMultistatus.httpDate(document.updatedAt)
            return response
        case .file(let file)?:
            return try await FileResponse(path: file.path, contentType: "application/octet-stream", etag: file.tag, size: file.size, filename: nil)
                .response(for: request, context: context)
        case .folder?, .root?:
            // A collection has no body of its own here; PROPFIND lists it.
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: .ok,
                headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "\(path) is a folder; list it with PROPFIND\n"))
            )
        case nil:
            throw Self.notFound(path)
        }
    }

    private func propfind(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let depth = request.headers[HTTPField.Name("Depth")!]?.trimmingCharacters(in: .whitespaces).lowercased() ?? "infinity"
        guard depth == "0" || depth == "1" else {
            throw APIError(
                .forbidden,
                "propfind_finite_depth",
                "PROPFIND with Depth: infinity is not served (RFC 4918 §9.1); ask with Depth: 1 folder by folder"
            )
        }
        let asked = try Self.propertiesAsked(try await Self.xmlBody(request, context))
        guard let resource = try await resolve(path, owner: owner) else { throw Self.notFound(path) }
        let held = try locks.current(owner: owner)
        // Asked for by name only (RFC 6578 §4), so a plain listing does not read the journal.
        let syncToken = asked.names("DAV:", "sync-token") ? Self.syncTokenPrefix + (try await library.changeToken(owner: owner)) : nil
        var out = DAVMultistatus()
        out.add(resource, at: path, version: nil, asked: asked, dead: dead(resource, owner), locks: held, syncToken: syncToken)
        if depth == "1", resource.isCollection {
            let folderPath = DAVPath(segments: path.segments)
            let withProperties = properties.keys(owner: owner)
            for folder in try await library.listFolders(owner: owner, parent: folderPath.folderReference, recursive: false) {
                out.add(
                    .folder(folder),
                    at: folderPath.appending(folder.name),
                    version: nil,
                    asked: asked,
                    dead: dead(.folder(folder), owner, among: withProperties),
                    locks: held,
                    syncToken: syncToken
                )
            }
            let folderID: UUID? = if case .folder(let folder) = resource { folder.id } else { nil }
            await conversions.settle(owner: owner, folderID: folderID)
            for file in files.files(owner: owner, folderID: folderID) {
                out.add(
                    .file(file),
                    at: folderPath.appending(file.name),
                    version: nil,
                    asked: asked,
                    dead: dead(.file(file), owner, among: withProperties),
                    locks: held
                )
            }
            var cursor: String?
            repeat {
                let page = try await library.listDocuments(
                    DocumentQuery(owner: owner, folder: folderPath.folderReference, limit: 1000, cursor: cursor)
                )
                out.reserve(responses: page.documents.count)
                for document in page.documents {
                    out.add(
                        .document(document),
                        at: folderPath.appending(DAVNames.fileName(document)),
                        version: nil,
                        asked: asked,
                        dead: dead(.document(document), owner, among: withProperties),
                        locks: held
                    )
                }
                cursor = page.nextCursor
            } while cursor != nil
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        return Response(status: Self.multiStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(string: out.body)))
    }

    /// `allprop` (or no body), `propname`, or the named properties.
    static func propertiesAsked(_ body: DAVElement?) throws(APIError) -> DAVMultistatus.Request {
        guard let body else { return .all }
        guard body.name == "propfind", body.namespace == DAVElement.dav else {
            throw APIError(.badRequest, "invalid_xml", "a PROPFIND body is a DAV:propfind element, not \(body.name)")
        }
        if body.child("propname") != nil { return .names }
        if let prop = body.child("prop") { return .only(prop.children.map { ($0.namespace, $0.name) }) }
        return .all
    }

    // MARK: Properties

    func dead(_ resource: DAVResource, _ owner: String, among keys: Set<String>? = nil) -> [String: String] {
        if let keys, keys.isEmpty { return [:] }
        let key = properties.key(resource, owner: owner)
        if let keys, !keys.contains(key) { return [:] }
        return properties.properties(at: key)
    }

    /// Sets and removes dead properties, in the order given, all or none (RFC 4918 §9.2): one
    /// that cannot be set (a live property) fails them all, the others with 424.
    private func proppatch(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        guard let resource = try await resolve(path, owner: owner) else { throw Self.notFound(path) }
        try await checkWritable(request, owner: owner, path: path, targets: [path], deep: false, members: [])
        guard let body = try await Self.xmlBody(request, context), body.name == "propertyupdate", body.namespace == DAVElement.dav else {
            throw APIError(.badRequest, "invalid_xml", "a PROPPATCH body is a DAV:propertyupdate element of set and remove")
        }
        let key = properties.key(resource, owner: owner)
        var stored = properties.properties(at: key)
        var outcomes: [(namespace: String, name: String, refused: Bool)] = []
        for instruction in body.children where instruction.namespace == DAVElement.dav {
            for property in instruction.child("prop")?.children ?? [] {
                let name = DAVPropertyStore.name(property.namespace, property.name)
                if property.namespace == DAVElement.dav || property.namespace == DAVMultistatus.pdfgate {
                    outcomes.append((property.namespace, property.name, true))
                    continue
                }
                switch instruction.name {
                case "set": stored[name] = property.xml
                case "remove": stored.removeValue(forKey: name)
                default: continue
                }
                outcomes.append((property.namespace, property.name, false))
            }
        }
        let failed = outcomes.contains { $0.refused }
        if !failed { try properties.save(stored, at: key) }
        var out = DAVMultistatus()
        out.add(
            path,
            collection: resource.isCollection,
            statuses: outcomes.map { outcome in
                (outcome.namespace, outcome.name, outcome.refused ? "403 Forbidden" : failed ? "424 Failed Dependency" : "200 OK")
            }
        )
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        return Response(status: Self.multiStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(string: out.body)))
    }

    // MARK: Helpers

    /// The request's XML body, read up to `DAVElement.maxBytes`.
    static func xmlBody(_ request: Request, _ context: GatewayRequestContext) async throws -> DAVElement? {
        var bytes: [UInt8] = []
        for try await buffer in request.body {
            guard bytes.count + buffer.readableBytes <= DAVElement.maxBytes else {
                throw APIError(.contentTooLarge, "xml_too_large", "the XML body is over \(DAVElement.maxBytes) bytes; WebDAV bodies are small")
            }
            bytes += buffer.readableBytesView
        }
        return try DAVElement.parse(bytes)
    }

    static func notFound(_ path: DAVPath) -> APIError {
        APIError(.notFound, "dav_not_found", "nothing at \(path) in your library; PROPFIND its folder to see what is there")
    }
}
