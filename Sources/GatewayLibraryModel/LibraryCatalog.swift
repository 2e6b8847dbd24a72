import Foundation

/// The library's rows: what `Library` records before and after each change to the tree, in
/// SQLite for one machine (`SQLiteLibraryCatalog`) or in PostgreSQL for several
/// (`PostgresLibraryCatalog`).
///
/// Each call is one transaction. `Library` makes every mutating sequence of calls under its
/// mutation lock, which spans all processes sharing the catalog, so between two calls no other
/// writer changes anything; the unique constraints on (owner, folder, name) and (owner, path)
/// still refuse a duplicate outright if something slips past.
package protocol LibraryCatalog: Sendable {
    /// Throws when the database does not answer (readiness).
    func ping() async throws

    // MARK: Documents

    /// A document with its folder's path. `owner` nil matches any owner; `readyOnly` hides rows
    /// whose operation is still in flight.
    func document(id: String, owner: String?, readyOnly: Bool) async throws -> DocumentWithPath?
    /// The ready documents among `ids` (of `owner`, or of anyone when nil), in any order; ids
    /// without one are left out (the documents of a page of search hits, in one read).
    func documents(ids: [String], owner: String?) async throws -> [DocumentWithPath]
    /// Whether any row, in any state, holds `name` in the folder.
    func documentNameTaken(owner: String, folderID: String, name: String) async throws -> Bool
    /// The ready document named `name` in folder `folderID` ("" for the root).
    func document(owner: String, folderID: String, name: String) async throws -> DocumentWithPath?
    /// A ready document of `owner` with what renaming or moving it needs, read together: the
    /// folder `destination` names (the document's own when nil), and whether a row already holds
    /// `name` (the document's own name when nil) there. A rename or move is then one read, not
    /// three. Nil when the owner has no such ready document.
    func placement(ofDocument id: String, owner: String, to destination: FolderLookup?, name: String?) async throws -> DocumentPlacement?
    func insert(_ document: DocumentRecord) async throws
    /// Many ready documents at once, in few transactions (seeding a benchmark library): rows
    /// `record(0)` to `record(count - 1)`, each made when it is written.
    func insertAll(count: Int, _ record: @escaping @Sendable (Int) -> DocumentRecord) async throws
    /// Writes `document` and answers the row as it now stands, with its folder's path, in the
    /// same call: dates carry exactly the precision the database keeps, so a caller returns what
    /// a later read would, without reading again.
    @discardableResult
    func update(_ document: DocumentRecord) async throws -> DocumentWithPath
    func deleteDocument(id: String) async throws
    /// The folder `lookup` names and up to `query.limit + 1` of its ready documents after
    /// `cursor` in the query's order (the extra one tells the caller there is a next page), read
    /// together: the library's hottest read, in one round trip. Nil when `lookup` names no ready
    /// folder of the owner.
    func listDocuments(_ query: DocumentQuery, in lookup: FolderLookup, after cursor: ListCursor?) async throws -> FolderListing?
    /// The sort field's value as this catalog compares it, for the next page's cursor.
    func sortValue(of document: DocumentRecord, _ field: DocumentSortField) -> SortValue

    // MARK: Folders

    func folder(id: String, owner: String) async throws -> FolderRecord?
    func folder(owner: String, path: String) async throws -> FolderRecord?
    /// The folder named `name` directly under `parentID` ("" for the root), in any state.
    func childFolder(owner: String, parentID: String, name: String) async throws -> FolderRecord?
    /// Ready folders directly under `parentID`, by path.
    func folders(owner: String, parentID: String) async throws -> [FolderRecord]
    /// Ready folders strictly under `path` (all of the owner's when nil), by path.
    func folders(owner: String, under path: String?) async throws -> [FolderRecord]
    /// How many documents and folders are directly in the folder.
    func contents(ofFolder id: String) async throws -> (documents: Int, folders: Int)
    func insert(_ folder: FolderRecord) async throws
    /// Writes `folder`; when `oldPath` is given, every folder under `oldPath` is moved under the
    /// folder's new path in the same transaction.
    func update(_ folder: FolderRecord, subtreeFrom oldPath: String?) async throws
    func deleteFolder(id: String) async throws
    /// Deletes the folder at `path` with every folder and document under it in one
    /// transaction; returns the deleted documents' ids.
    func deleteTree(owner: String, path: String) async throws -> [String]

    // MARK: Recovery and fsck

    /// Documents not `ready`, or mid-move.
    func unfinishedDocuments() async throws -> [DocumentWithPath]
    /// Folders not `ready`, or mid-move, by path (parents first).
    func unfinishedFolders() async throws -> [FolderRecord]
    func readyDocuments() async throws -> [DocumentWithPath]
    func readyFolders() async throws -> [FolderRecord]
    /// Every `staged_path` a row claims.
    func stagedPaths() async throws -> Set<String>

    // MARK: Change journal

    /// The owner's journal rows after `sequence`, oldest first, at most `limit`, each with its
    /// item as it is now. The database's triggers write the journal with every change.
    func changes(owner: String, after sequence: Int64, limit: Int) async throws -> JournalPage
    /// The journal rows after `sequence` of the members of folder `folderID` ("" for the root),
    /// oldest first, each with its item as it is now, and the places in that folder left after
    /// `sequence` (`JournalPage.departures`).
    func changes(owner: String, inFolder folderID: String, after sequence: Int64) async throws -> JournalPage
    /// Drops the deletions and departures recorded before `date` and moves the journal's
    /// horizon past them; returns how many deletions were dropped.
    func forgetDeletions(before date: Date) async throws -> Int
    /// The sequence number of the item's latest change while it is shown; nil otherwise.
    func version(ofDocument id: String) async throws -> Int64?
    func version(ofFolder id: String) async throws -> Int64?
    /// Who owns the folder `id`, if any does (a client-chosen id must be free across owners).
    func owner(ofFolder id: String) async throws -> String?
}

/// Which folder a listing reads: the owner's root, or one by id or by its path (already in the
/// form `LibraryNames.folderPath` gives it).
package enum FolderLookup: Sendable, Equatable {
    case root
    case id(String)
    case path(String)
}

/// A document and where a rename or move would put it (`LibraryCatalog.placement`).
package struct DocumentPlacement: Sendable {
    package var document: DocumentWithPath
    /// The destination folder's id and path ("" and "" for the root); nil when the lookup names
    /// no ready folder of the owner.
    package var folder: (id: String, path: String)?
    /// Whether a row, in any state, already holds the asked name in that folder.
    package var nameTaken: Bool

    package init(document: DocumentWithPath, folder: (id: String, path: String)?, nameTaken: Bool) {
        self.document = document
        self.folder = folder
        self.nameTaken = nameTaken
    }
}

extension Optional where Wrapped == FolderRecord {
    /// A looked-up folder as a place to put documents (`DocumentPlacement.folder`): nil unless
    /// it exists and is ready.
    package var readyPlace: (id: String, path: String)? {
        guard let folder = self, folder.state == .ready else { return nil }
        return (folder.id, folder.path)
    }
}

/// A page of a folder's documents, with the folder (nil for the root).
package struct FolderListing: Sendable {
    package var folder: FolderRecord?
    package var documents: [DocumentWithPath]

    package init(folder: FolderRecord?, documents: [DocumentWithPath]) {
        self.folder = folder
        self.documents = documents
    }
}

/// A sort column's value as a catalog stores and compares it, carried in a list cursor.
package enum SortValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case real(Double)
}

/// The opaque position after which the next page starts: the sort it belongs to, the last
/// row's sort value and id, as base64url JSON.
package struct ListCursor: Sendable {
    package var sort: DocumentSort
    package var value: SortValue
    package var id: String

    package init(sort: DocumentSort, value: SortValue, id: String) {
        self.sort = sort
        self.value = value
        self.id = id
    }

    private struct Wire: Codable {
        var s: String
        var i: String
        var t: String?
        var n: Double?
        var k: Int64?
    }

    package var encoded: String {
        var wire = Wire(s: sort.description, i: id)
        switch value {
        case .text(let text): wire.t = text
        case .integer(let int): wire.k = int
        case .real(let double): wire.n = double
        }
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return data.base64URLEncoded
    }

    package init(decoding text: String, sort: DocumentSort) throws(LibraryError) {
        guard let data = Data(base64URLEncoded: text), let wire = try? JSONDecoder().decode(Wire.self, from: data),
            let value = wire.t.map(SortValue.text) ?? wire.k.map(SortValue.integer) ?? wire.n.map(SortValue.real)
        else {
            throw LibraryError(.invalidCursor, "cursor '\(text)' is not one this server issued; start again without a cursor")
        }
        guard wire.s == sort.description else {
            throw LibraryError(
                .invalidCursor,
                "cursor was issued for sort '\(wire.s)' but this request sorts by '\(sort)'; keep the sort the same across pages"
            )
        }
        self.sort = sort
        self.id = wire.i
        self.value = value
    }
}
