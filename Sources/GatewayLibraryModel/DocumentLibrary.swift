import Foundation

/// The library as the API's controllers see it: documents and folders by owner, where a
/// document's file and thumbnails are, and the filer's side (kept results, discards). A port, so
/// that HTTP does not depend on how the store keeps its rows; `Library` (GatewayStore) is the
/// one implementation, on SQLite or PostgreSQL.
public protocol DocumentLibrary: DocumentFiler {
    /// The owner's ready document `id`; `documentNotFound` otherwise.
    func document(id: UUID, owner: String) async throws(LibraryError) -> Document
    /// The owner's ready document named `name` in `folder`; nil when there is none (a missing
    /// folder is `folder_not_found`).
    func document(named name: String, in folder: FolderReference, owner: String) async throws(LibraryError) -> Document?
    /// A local file holding the document's PDF: its place in the folder tree, or a cached copy
    /// of its object in a bucket (`storage_unavailable` when the bucket does not answer).
    func readableFile(of document: Document) async throws(LibraryError) -> String
    /// A URL the client may fetch the document's bytes from directly for `expires`, named
    /// `filename`: a presigned URL of its object; nil when documents are files in the tree.
    func directDownloadURL(of document: Document, expires: Duration) -> String?
    /// Renames and/or moves a document; its id stays.
    @discardableResult
    func updateDocument(
        id: UUID,
        owner: String,
        name: String?,
        folder: FolderReference?,
        conflict: ConflictPolicy
    ) async throws(LibraryError)
        -> Document
    func deleteDocument(id: UUID, owner: String) async throws(LibraryError)
    /// A new document (new id) with a copy of document `id`'s PDF, as `name` in `folder`.
    @discardableResult
    func copyDocument(id: UUID, owner: String, to folder: FolderReference, name: String) async throws(LibraryError) -> Document
    /// One page of the owner's documents, as `query` asks: a full-text search when it has `text`.
    func listDocuments(_ query: DocumentQuery) async throws(LibraryError) -> DocumentPage

    /// nil for the root folder, which has no row.
    func folder(_ reference: FolderReference, owner: String) async throws(LibraryError) -> Folder?
    func listFolders(owner: String, parent: FolderReference, recursive: Bool) async throws(LibraryError) -> [Folder]
    /// Creates the folder at `path` and any missing parents.
    @discardableResult
    func createFolder(path: String, owner: String) async throws(LibraryError) -> Folder
    /// Renames and/or moves a folder with everything under it.
    @discardableResult
    func updateFolder(
        _ reference: FolderReference,
        owner: String,
        name: String?,
        parent: FolderReference?,
        conflict: ConflictPolicy
    )
        async throws(LibraryError) -> Folder
    func deleteFolder(_ reference: FolderReference, owner: String, recursive: Bool) async throws(LibraryError)

    /// What changed in the owner's library since `token` (every document and folder created,
    /// changed, moved or deleted, each once, oldest change first), or, without a token, the
    /// whole library; at most `limit` entries, with the token to read on from.
    func changes(owner: String, since token: String?, limit: Int) async throws(LibraryError) -> LibraryChangePage
    /// The token of the journal as it is now: read from it, a client sees only later changes.
    func changeToken(owner: String) async throws(LibraryError) -> String
    /// What changed among the members of one folder since `token` (the same journal and tokens
    /// as `changes`), for WebDAV's `sync-collection`; at most `limit` entries when given.
    func folderChanges(
        _ folder: FolderReference,
        owner: String,
        since token: String?,
        limit: Int?
    ) async throws(LibraryError)
        -> FolderChangeSet
    /// Creates or replaces document `id` (the client's own UUID) with the PDF at `source`,
    /// if `precondition` holds; see `Library.putDocument`.
    func putDocument(
        id: UUID,
        owner: String,
        source: String,
        info: PDFInfo,
        name: String?,
        folder: FolderReference?,
        precondition: WritePrecondition
    ) async throws(LibraryError) -> PutResult<Document>
    /// Creates folder `id` (the client's own UUID) or renames and moves it, if `precondition` holds.
    func putFolder(
        id: UUID,
        owner: String,
        name: String,
        parent: FolderReference?,
        precondition: WritePrecondition
    ) async throws(LibraryError)
        -> PutResult<Folder>
    /// The version of a document or folder, which its ETag shows and `If-Match` names.
    func version(ofDocument id: UUID, owner: String) async throws(LibraryError) -> ItemVersion
    func version(ofFolder id: UUID, owner: String) async throws(LibraryError) -> ItemVersion

    /// Where rendered pictures of document `id` are cached (removed with it).
    func thumbnailDirectory(of id: UUID) -> String
    /// The store's own directory, which must stay writable (readiness writes a probe there).
    var metaDirectory: String { get }
    /// Answers once the rows' database does.
    func ping() async throws
}
