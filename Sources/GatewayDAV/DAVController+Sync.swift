import Foundation
import GatewayHTTPServing
import GatewayLibraryModel
import HTTPTypes
import Hummingbird

/// WebDAV's `sync-collection` REPORT (RFC 6578) over the library's change journal: the members of
/// a folder created, changed or moved in since the client's token, each with the properties
/// asked for, and a 404 for each href that held a member then and holds none now. Tokens are the
/// change feed's (`GET /v1/changes`) as URIs, so they survive restarts and work on every node.
///
/// Only `sync-level` 1: a folder's members, as PROPFIND depth 1 lists them. `infinite` is refused
/// as the RFC allows, so a client walks the folders it cares about. Files that are not
/// documents (`DAVFileStore`) are not in the journal and so not reported.
extension DAVController {
    static let report = HTTPRequest.Method("REPORT")!
    /// A sync token as a URI (RFC 6578 §3.2 wants one): this prefix and the feed's token.
    static let syncTokenPrefix = "https://pdfgate.dev/ns/sync/"

    func report(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        guard let body = try await Self.xmlBody(request, context), body.namespace == DAVElement.dav, body.name == "sync-collection" else {
            throw APIError(
                .forbidden,
                "dav_report_unsupported",
                "the only REPORT served is DAV:sync-collection (RFC 6578); PROPFIND lists a folder"
            )
        }
        let depth = request.headers[HTTPField.Name("Depth")!]?.trimmingCharacters(in: .whitespaces) ?? "0"
        guard depth == "0" else {
            throw APIError(
                .badRequest,
                "dav_report_depth",
                "a sync-collection REPORT takes Depth: 0 or none (RFC 6578 §3.2); sync-level says how deep"
            )
        }
        let level = body.child("sync-level")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "1"
        guard level == "1" else {
            throw DAVPreconditionFailure(
                .forbidden,
                precondition: "sync-traversal-supported",
                code: "dav_sync_level_unsupported",
                message: "sync-level '\(level)' is not served; ask each folder with sync-level 1"
            )
        }
        let tokenText = body.child("sync-token")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var token: String?
        if !tokenText.isEmpty {
            guard tokenText.hasPrefix(Self.syncTokenPrefix) else { throw Self.invalidToken(.invalidSyncToken) }
            token = String(tokenText.dropFirst(Self.syncTokenPrefix.count))
        }
        var limit: Int?
        if let nresults = body.child("limit")?.child("nresults") {
            guard let value = Int(nresults.text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 else {
                throw APIError(.badRequest, "invalid_xml", "DAV:nresults is '\(nresults.text)'; give a whole number above 0")
            }
            limit = value
        }
        let asked: DAVMultistatus.Request = body.child("prop").map { .only($0.children.map { ($0.namespace, $0.name) }) } ?? .all

        guard let resource = try await resolve(path, owner: owner) else { throw Self.notFound(path) }
        let folder: FolderReference
        switch resource {
        case .root: folder = .root
        case .folder(let record): folder = .id(record.id)
        case .document, .file:
            throw APIError(.forbidden, "dav_report_not_collection", "\(path) is not a folder; sync-collection reports on folders")
        }
        let changes = try await folderChanges(folder, owner: owner, since: token, limit: limit)

        let folderPath = DAVPath(segments: path.segments)
        let held = try locks.current(owner: owner)
        let withProperties = properties.keys(owner: owner)
        var out = DAVMultistatus()
        for change in changes.changed {
            guard let member = Self.member(change) else { continue }
            out.add(
                member.resource,
                at: folderPath.appending(member.name),
                version: member.version,
                asked: asked,
                dead: dead(member.resource, owner, among: withProperties),
                locks: held
            )
        }
        for departure in changes.departed {
            let isFolder = departure.kind == .folder
            out.add(
                folderPath.appending(isFolder ? departure.name : departure.name + DAVNames.pdfSuffix),
                collection: isFolder,
                status: "404 Not Found"
            )
        }
        if changes.more { out.add(folderPath, collection: true, status: "507 Insufficient Storage") }
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        return Response(
            status: Self.multiStatus,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: out.body(syncToken: Self.syncTokenPrefix + changes.token)))
        )
    }

    /// The library's answer, with a token it cannot serve as RFC 6578's `valid-sync-token`
    /// failure, which makes a client start over.
    private func folderChanges(_ folder: FolderReference, owner: String, since token: String?, limit: Int?) async throws -> FolderChangeSet {
        let result: Result<FolderChangeSet, LibraryError>
        do { result = .success(try await library.folderChanges(folder, owner: owner, since: token, limit: limit)) } catch { result = .failure(error) }
        switch result {
        case .success(let changes): return changes
        case .failure(let error) where error.kind == .invalidSyncToken || error.kind == .syncTokenExpired: throw Self.invalidToken(error.kind)
        case .failure(let error): throw error
        }
    }

    /// A changed member as the report shows it: the resource, its name in the folder, its version.
    private static func member(_ change: LibraryChange) -> (resource: DAVResource, name: String, version: ItemVersion)? {
        switch change {
        case .document(let document, let version): (.document(document), DAVNames.fileName(document), version)
        case .folder(let folder, let version): (.folder(folder), folder.name, version)
        case .deletedDocument, .deletedFolder: nil
        }
    }

    private static func invalidToken(_ kind: LibraryError.Kind) -> DAVPreconditionFailure {
        let expired = kind == .syncTokenExpired
        return DAVPreconditionFailure(
            .forbidden,
            precondition: "valid-sync-token",
            code: expired ? "sync_token_expired" : "invalid_sync_token",
            message: (expired
                ? "the sync token is older than the change history this server keeps"
                : "the sync token is not one this server's change journal issued")
                + "; sync again from an empty DAV:sync-token"
        )
    }
}

/// A WebDAV precondition or postcondition failure (RFC 4918 §16): the status with a `DAV:error`
/// body naming the condition, which clients act on (a `valid-sync-token` failure makes a
/// client sync from scratch), and our stable code and message beside it.
struct DAVPreconditionFailure: SelfDescribingError {
    var status: HTTPResponse.Status
    var precondition: String
    var code: String
    var message: String

    init(_ status: HTTPResponse.Status, precondition: String, code: String, message: String) {
        self.status = status
        self.precondition = precondition
        self.code = code
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        let body =
            #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
            + #"<D:error xmlns:D="DAV:" xmlns:P="\#(DAVMultistatus.pdfgate)"><D:\#(precondition)/>"#
            + "<P:code>\(DAVMultistatus.escape(code))</P:code><P:message>\(DAVMultistatus.escape(message))</P:message></D:error>"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
