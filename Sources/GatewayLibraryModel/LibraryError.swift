import GatewayCore

/// Why a library operation was refused or failed. Nothing is changed when one is thrown.
public struct LibraryError: GatewayError, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case documentNotFound = "document_not_found"
        case folderNotFound = "folder_not_found"
        /// Another document or folder already has that name in the target folder.
        case nameConflict = "name_conflict"
        case invalidName = "invalid_name"
        case invalidPath = "invalid_path"
        case folderNotEmpty = "folder_not_empty"
        /// A folder cannot be moved into itself or one of its descendants.
        case invalidMove = "invalid_move"
        case invalidCursor = "invalid_cursor"
        /// A change-journal token this server did not issue, or one of another journal.
        case invalidSyncToken = "invalid_sync_token"
        /// A change-journal token older than the history kept: read everything again.
        case syncTokenExpired = "sync_token_expired"
        /// An `If-Match` / `If-None-Match` condition does not hold: the item is not the version
        /// the writer last saw (or exists when it should not). Nothing was written.
        case preconditionFailed = "precondition_failed"
        /// A client-chosen id already names an item the caller cannot write.
        case idTaken = "id_taken"
        case invalidSort = "invalid_sort"
        /// A full-text search the index cannot run (`SearchQueryError` says how to write one).
        case invalidQuery = "invalid_query"
        case invalidArgument = "invalid_argument"
        /// The disk or database failed underneath us.
        case storage = "storage_error"
        /// The object storage holding documents' bytes does not answer now; try again shortly.
        case storageUnavailable = "storage_unavailable"
        /// Another process runs the job engine on this store.
        case storeBusy = "store_busy"
    }

    public var kind: Kind
    public var message: String
    public var code: String { kind.rawValue }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
