import Foundation
import GatewayLibraryModel

/// One entry of `GET /v1/changes`: a document or folder as it is now, or the id of one that is
/// gone (`{"kind": "document", "id": …, "deleted": true}`).
public struct ChangeJSON: Encodable, Sendable {
    public var kind: String
    public var id: String
    public var deleted: Bool
    public var document: DocumentJSON?
    public var folder: FolderJSON?

    /// Documents as a listing shows them: no signed link, which a page of 500 would sign 500 times.
    public init(_ change: LibraryChange) {
        switch change {
        case .document(let document, let version):
            (kind, id, deleted) = ("document", document.id.lowercased, false)
            self.document = DocumentJSON(document)
            self.document?.version = version.description
        case .folder(let folder, let version):
            (kind, id, deleted) = ("folder", folder.id.lowercased, false)
            self.folder = FolderJSON(folder)
            self.folder?.version = version.description
        case .deletedDocument(let id):
            (kind, self.id, deleted) = ("document", id.lowercased, true)
        case .deletedFolder(let id):
            (kind, self.id, deleted) = ("folder", id.lowercased, true)
        }
    }
}

/// A page of `GET /v1/changes`: the changes, the token to keep, whether more follow, and the
/// link that reads them.
public struct ChangePageJSON: Encodable, Sendable {
    public var changes: [ChangeJSON]
    public var token: String
    public var more: Bool
    @NullWhenAbsent public var next: String?

    public init(changes: [ChangeJSON], token: String, more: Bool, next: String?) {
        self.changes = changes
        self.token = token
        self.more = more
        self.next = next
    }
}

extension ChangePageJSON {
    /// Written by hand like a listing (`DocumentJSON.write`): a page is up to 1,000 documents,
    /// and the change feed is what a syncing client reads most.
    public func write(to out: inout JSONOutput) throws {
        try Self.write(changes: changes, token: token, more: more, next: next, to: &out)
    }

    /// The page from `changes` made one at a time (`lazy.map(ChangeJSON.init)`), so a page of
    /// 1,000 is not first copied into an array of them.
    public static func write(
        changes: some Sequence<ChangeJSON>,
        token: String,
        more: Bool,
        next: String?,
        to out: inout JSONOutput
    ) throws {
        out.beginObject()
        out.key("changes")
        out.beginArray()
        for change in changes {
            out.beginObject()
            out.key("kind")
            out.string(change.kind)
            out.key("id")
            out.string(change.id)
            out.key("deleted")
            out.bool(change.deleted)
            if let document = change.document {
                out.key("document")
                document.write(to: &out)
            }
            if let folder = change.folder {
                out.key("folder")
                try out.encoded(folder)
            }
            out.endObject()
        }
        out.endArray()
        out.key("token")
        out.string(token)
        out.key("more")
        out.bool(more)
        out.key("next")
        out.string(next)
        out.endObject()
    }
}
