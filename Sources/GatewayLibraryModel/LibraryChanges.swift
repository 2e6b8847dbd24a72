import Foundation
import GatewayCore

/// What the change journal says happened to one document or folder since a token: it is now
/// as given, or it is gone. One entry per item, however often it changed: the journal keeps only
/// each item's latest change, so a client catching up reads each item once.
public enum LibraryChange: Sendable, Equatable {
    case document(Document, ItemVersion)
    case folder(Folder, ItemVersion)
    case deletedDocument(UUID)
    case deletedFolder(UUID)
}

/// A page of the change journal (`DocumentLibrary.changes`).
public struct LibraryChangePage: Sendable {
    public var changes: [LibraryChange]
    /// Where the next read starts: after the last change on this page, or, on the last page,
    /// after everything the library holds now. Keep it and ask again later.
    public var token: String
    /// Whether more changes follow at once (ask again with `token`).
    public var more: Bool

    public init(changes: [LibraryChange], token: String, more: Bool) {
        self.changes = changes
        self.token = token
        self.more = more
    }
}

/// A position in the change journal, opaque to clients: the journal's epoch (a random id given
/// when the journal was created, so a token from another database or a restored backup is not
/// mistaken for one of this journal) and the sequence number of the last change read.
package struct ChangeToken: Sendable, Equatable {
    package var epoch: String
    package var sequence: Int64

    package init(epoch: String, sequence: Int64) {
        self.epoch = epoch
        self.sequence = sequence
    }

    package var encoded: String { Data("\(epoch).\(sequence)".utf8).base64URLEncoded }

    package init(decoding text: String) throws(LibraryError) {
        guard let data = Data(base64URLEncoded: text), let plain = String(data: data, encoding: .utf8),
            let dot = plain.lastIndex(of: "."), let sequence = Int64(plain[plain.index(after: dot)...]), sequence >= 0
        else {
            throw LibraryError(
                .invalidSyncToken,
                "sync token '\(text)' is not one this server issued; read the whole library again without `since`"
            )
        }
        self.epoch = String(plain[..<dot])
        self.sequence = sequence
    }
}

/// One row of the journal as the catalog reads it, joined with the item as it is now.
package enum JournalItem: Sendable {
    case document(DocumentWithPath)
    case folder(FolderRecord)
    case deletedDocument(String)
    case deletedFolder(String)
}

/// A page of journal rows with the journal's identity (`LibraryCatalog.changes`).
package struct JournalPage: Sendable {
    /// The journal's random id (`ChangeToken.epoch`).
    package var epoch: String
    /// Changes up to this sequence number may have been forgotten: a token before it is expired.
    package var horizon: Int64
    /// The highest sequence number the journal has handed out, for the token of a last page.
    package var latest: Int64
    package var entries: [(sequence: Int64, item: JournalItem)]
    /// The places left, when the page is one folder's (`LibraryCatalog.changes(owner:inFolder:after:)`).
    package var departures: [JournalDeparture]

    package init(
        epoch: String,
        horizon: Int64,
        latest: Int64,
        entries: [(sequence: Int64, item: JournalItem)],
        departures: [JournalDeparture] = []
    ) {
        self.epoch = epoch
        self.horizon = horizon
        self.latest = latest
        self.entries = entries
        self.departures = departures
    }
}

/// A name in a folder that a document or folder left (moved, renamed or deleted), and the
/// sequence number of that change.
package struct JournalDeparture: Sendable, Equatable {
    package var sequence: Int64
    package var kind: LibraryItemKind
    package var name: String

    package init(sequence: Int64, kind: LibraryItemKind, name: String) {
        self.sequence = sequence
        self.kind = kind
        self.name = name
    }
}

/// Whether a journal row is about a document or a folder.
public enum LibraryItemKind: String, Sendable, Equatable {
    case document
    case folder
}

/// What changed among one folder's members since a token (`DocumentLibrary.folderChanges`), as
/// WebDAV's `sync-collection` report tells it: the members that are new or changed, as they are
/// now, and the names that held a member at the token and hold none now.
public struct FolderChangeSet: Sendable {
    /// Members created, changed or moved in since the token (without one, every member),
    /// oldest change first. Only `.document` and `.folder` cases.
    public var changed: [LibraryChange]
    /// Names (of a document or a folder) that held a member at the token and hold none now.
    public var departed: [(kind: LibraryItemKind, name: String)]
    /// Where the next read starts; see `LibraryChangePage.token`.
    public var token: String
    /// Whether the set was cut at the asked limit and more follows at once (ask again with `token`).
    public var more: Bool

    public init(changed: [LibraryChange], departed: [(kind: LibraryItemKind, name: String)], token: String, more: Bool) {
        self.changed = changed
        self.departed = departed
        self.token = token
        self.more = more
    }
}

/// What a client-driven write (`PUT` with the client's own id) requires of the item first.
public enum WritePrecondition: Sendable, Equatable {
    /// Create or replace, whatever is there.
    case none
    /// `If-None-Match: *`: create only; an existing item is left as it is.
    case absent
    /// `If-Match: *`: replace only; a missing item is not created.
    case exists
    /// `If-Match`: replace only this version (`ItemVersion`); a missing item fails too.
    case version(ItemVersion)
}

/// The version of a document or folder: the sequence number of its latest change in the
/// journal, so any change to it (content, name, place) gives a new one. Shown as an ETag.
public struct ItemVersion: Sendable, Equatable, CustomStringConvertible {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }

    /// The ETag form, quoted: `"42"`.
    public var etag: String { "\"\(sequence)\"" }
    public var description: String { String(sequence) }

    /// Reads an ETag as a client sends it back (quoted or not, `W/` ignored); nil if it is not
    /// one of ours.
    public init?(etag text: String) {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        guard let sequence = Int64(text), sequence > 0 else { return nil }
        self.sequence = sequence
    }
}

/// A document or folder written by `putDocument` / `putFolder`, with its version and whether
/// the write created it.
public struct PutResult<Item: Sendable>: Sendable {
    public var item: Item
    public var version: ItemVersion
    public var created: Bool

    public init(item: Item, version: ItemVersion, created: Bool) {
        self.item = item
        self.version = version
        self.created = created
    }
}
