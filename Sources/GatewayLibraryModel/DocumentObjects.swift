import Foundation

/// Where a library keeps documents' bytes when they are not files in its folder tree: objects in
/// a bucket, one per document and content, written once and never changed. Renames and moves
/// then touch only the catalog; a new content is a new object, and the old one is retired.
///
/// Every method that reaches the server may throw `LibraryError.storageUnavailable` when it does
/// not answer, after whatever retrying the implementation does.
public protocol DocumentObjects: Sendable {
    /// Where the objects are, for messages and logs (`s3://bucket/prefix`).
    var location: String { get }
    /// How long an object no row names is kept: an upload whose row is not written yet, or
    /// content a download may still be reading after its document was deleted or replaced.
    var grace: Duration { get }
    /// Stores the file at `path` (not taken) as content `sha256` of document `id`. Writing the
    /// same content again is harmless: the object is the same.
    func store(_ path: String, id: UUID, sha256: String, size: Int64) async throws(LibraryError)
    /// A local file holding that content, read from the bucket when it is not cached. The file
    /// stays at least as long as a download takes to start reading it.
    func localFile(id: UUID, sha256: String, size: Int64) async throws(LibraryError) -> String
    /// A URL anyone can fetch the content from until `expires` has passed, named `filename`;
    /// nil when the storage has no such URLs.
    func downloadURL(id: UUID, sha256: String, filename: String, expires: Duration) -> String?
    /// Every object the storage holds for this library.
    func inventory() async throws(LibraryError) -> [StoredObject]
    /// Whether content `sha256` of document `id` is stored, with `size` bytes.
    func contains(id: UUID, sha256: String, size: Int64) async throws(LibraryError) -> Bool
    /// Removes content `sha256` of document `id`; one already gone is no error.
    func remove(id: UUID, sha256: String) async throws(LibraryError)
}

/// One object of a `DocumentObjects`, as its listing shows it.
public struct StoredObject: Sendable, Hashable {
    /// The key, whole.
    public var key: String
    /// The document and content it holds; nil for a key the library did not write.
    public var id: UUID?
    public var sha256: String?
    public var size: Int64
    public var lastModified: Date?

    public init(key: String, id: UUID?, sha256: String?, size: Int64, lastModified: Date?) {
        self.key = key
        self.id = id
        self.sha256 = sha256
        self.size = size
        self.lastModified = lastModified
    }
}
