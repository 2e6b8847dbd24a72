import GatewaySearchText

/// The library's full-text index: SQLite FTS5 in the embedded store, PostgreSQL `tsvector` in a
/// cluster, one contract for both (`SearchIndexContractTests`).
///
/// Each call here is its own transaction. The catalogs also write the index inside their own
/// transactions (filing, rename, move, delete), through functions their backend adds that take
/// its transaction, so a document and its index row never disagree after a commit. The calls
/// here are for work outside those: the backfill, repairs, tests.
public protocol SearchIndex: Sendable {
    /// Adds or replaces a document's entry (its text included). A document keeps its place
    /// among the newest on a rewrite.
    func write(_ entry: SearchEntry) async throws
    /// Writes the text read from a document's file, if the document is still ready with that
    /// file (`sha256`): its entry takes the document's name, title and folder as they are in the
    /// same transaction, so no rename or move can slip between. False when it was not written.
    func writeText(documentID: String, sha256: String, content: SearchContent) async throws -> Bool
    /// Follows a rename, or a new title after the file was replaced.
    func rename(documentID: String, name: String, title: String?) async throws
    /// Follows a document's move to `folderID` (`""` for the root).
    func move(documentID: String, folderID: String) async throws
    /// Follows a folder's move (or rename): the documents under it get their folders' scope
    /// again. Call after the folders' rows have their new paths.
    func moveFolder(id: String) async throws
    /// Forgets these documents; ids without an entry are ignored.
    func delete(documentIDs: [String]) async throws
    /// One page of hits, best first among the newest `rankedAmong` matches.
    func search(_ request: SearchRequest) async throws -> SearchPage
    /// Up to `limit` documents whose text still has to be extracted, oldest first. An index
    /// several nodes share hands each to one caller at a time (PostgreSQL's claims them for a
    /// while), so their indexers share the reading.
    func pending(limit: Int) async throws -> [PendingDocument]
    /// How many entries are in each state, for one owner or all.
    func status(owner: String?) async throws -> SearchIndexStatus
    /// What fsck reports about the index: entries missing, stale or orphaned and, with
    /// `verifyFullText`, a full-text index that does not match its stored text. That check
    /// re-reads every indexed text and holds the database's write lock meanwhile (seconds on a
    /// large library), so a report on a live store may leave it out.
    func check(verifyFullText: Bool) async throws -> [SearchIndexIssue]
    /// Fixes what `check()` found: a missing entry is added as pending, a stale one rewritten
    /// (its text pending again when the file changed), an orphan deleted, a corrupt index rebuilt.
    func repair(_ issues: [SearchIndexIssue]) async throws
}

/// A document whose text the backfill has to extract.
public struct PendingDocument: Sendable, Equatable {
    public var documentID: String
    public var owner: String

    public init(documentID: String, owner: String) {
        self.documentID = documentID
        self.owner = owner
    }
}

/// Entries per state; documents without an entry are fsck's `index_missing`.
public struct SearchIndexStatus: Sendable, Equatable {
    public var pending: Int
    public var ready: Int
    public var failed: Int

    public init(pending: Int, ready: Int, failed: Int) {
        self.pending = pending
        self.ready = ready
        self.failed = failed
    }

    /// Every entry has been through extraction (failed ones included: they will not get better
    /// by waiting).
    public var complete: Bool { pending == 0 }
}

/// One thing wrong with the index, as fsck reports it.
public struct SearchIndexIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// A ready document has no entry.
        case missing = "index_missing"
        /// An entry disagrees with its document: another file (sha256), an older extractor, or a
        /// name, title, owner or folder the index did not follow.
        case stale = "index_stale"
        /// An entry for a document that no longer exists.
        case orphan = "index_orphan"
        /// The full-text index does not match the text it was built from.
        case corrupt = "index_corrupt"
    }

    public var kind: Kind
    /// nil for `corrupt`, which is about the whole index.
    public var documentID: String?
    public var detail: String

    public init(_ kind: Kind, documentID: String?, _ detail: String) {
        self.kind = kind
        self.documentID = documentID
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue) \(documentID ?? "-"): \(detail)" }
}
