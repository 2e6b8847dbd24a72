import Foundation
import GatewayLibraryModel

/// One entry of `GET /v1/changes`: a document or folder as it is now, or the id of one that is
/// gone (`{"kind": "document", "id": …, "deleted": true}`). Documents as a listing shows them:
/// no signed link, which a page of 500 would sign 500 times.
public struct ChangeJSON: Encodable, Sendable {
    public var change: LibraryChange

    public init(_ change: LibraryChange) {
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case kind, id, deleted, document, folder
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(change.kind, forKey: .kind)
        try container.encode(change.id.lowercased, forKey: .id)
        try container.encode(change.isDeletion, forKey: .deleted)
        switch change {
        case .document(let document, let version):
            try container.encode(DocumentJSON(document, version: version.description), forKey: .document)
        case .folder(let folder, let version):
            try container.encode(FolderJSON(folder, version: version.description), forKey: .folder)
        case .deletedDocument, .deletedFolder:
            break
        }
    }

    /// The one writer of an entry's JSON, straight from the library's value.
    public static func write(_ change: LibraryChange, to out: inout JSONOutput) throws {
        out.beginObject()
        out.key("kind")
        out.string(change.kind)
        out.key("id")
        out.id(change.id)
        out.key("deleted")
        out.bool(change.isDeletion)
        switch change {
        case .document(let document, let version):
            out.key("document")
            DocumentJSON.write(document, downloadURL: nil, version: version.description, to: &out)
        case .folder(let folder, let version):
            out.key("folder")
            try out.encoded(FolderJSON(folder, version: version.description))
        case .deletedDocument, .deletedFolder:
            break
        }
        out.endObject()
    }
}

extension LibraryChange {
    /// `document` or `folder`, as the change feed spells an entry's kind.
    fileprivate var kind: String {
        switch self {
        case .document, .deletedDocument: "document"
        case .folder, .deletedFolder: "folder"
        }
    }

    fileprivate var id: UUID {
        switch self {
        case .document(let document, _): document.id
        case .folder(let folder, _): folder.id
        case .deletedDocument(let id), .deletedFolder(let id): id
        }
    }

    fileprivate var isDeletion: Bool {
        switch self {
        case .document, .folder: false
        case .deletedDocument, .deletedFolder: true
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
        try Self.write(changes: changes.map(\.change), token: token, more: more, next: next, to: &out)
    }

    /// The page straight from the library's changes, each written where it lies in the array:
    /// no entry is copied into a wire value first.
    public static func write(
        changes: [LibraryChange],
        token: String,
        more: Bool,
        next: String?,
        to out: inout JSONOutput
    ) throws {
        out.beginObject()
        out.key("changes")
        out.beginArray()
        for index in changes.indices { try ChangeJSON.write(changes[index], to: &out) }
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
