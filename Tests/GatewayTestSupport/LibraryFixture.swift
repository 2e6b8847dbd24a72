import Foundation
import GatewayAssembly
import GatewayDocumentStorage
import GatewayLibrary
import GatewayLibraryModel
import GatewayPostgres
import GatewayStore
import Testing

/// The two implementations of the store's ports, for the contract suites that run unchanged
/// against both: the embedded SQLite store and PostgreSQL (a real server, a database per test).
public enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    public var testDescription: String { rawValue }
}

/// A library in its own temp store, with helpers to file real fixture PDFs: rows in the
/// store's SQLite file, or in a fresh PostgreSQL database of the tests' server.
public struct LibraryFixture: Sendable {
    public let directory = TemporaryDirectory("library")
    public let library: Library
    public let inspector = PdfinfoInspector()
    /// Set for `.postgres`: where the rows are, for `reopen()`.
    public let database: PostgresDatabase?
    /// Set when documents are objects: the bucket, in the tests' Ceph.
    public let objects: BucketDocuments?

    /// - Parameter bucket: keep documents in a fresh bucket of the tests' S3 server instead of
    ///   the folder tree.
    ///   `grace` is how long its objects no row names are kept.
    public init(_ backend: StoreBackend = .sqlite, bucket: Bool = false, grace: Duration = .seconds(900)) async throws {
        let root = directory.path + "/store"
        objects = bucket ? try TestS3.freshBucketDocuments(root: root, grace: grace) : nil
        switch backend {
        case .sqlite:
            database = nil
            library = try await Library.open(root: root, objects: objects)
        case .postgres:
            let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL())
            self.database = database
            library = try await Library.shared(root: root, database: database, objects: objects)
        }
    }

    /// The same library opened again, as another process or node would (with its own store
    /// directory when documents are in a bucket: `root`, given, is that node's).
    public func reopen(reconciling: Bool = true, root: String? = nil) async throws -> Library {
        let root = root ?? self.root
        let objects = try self.objects.map {
            try BucketDocuments(client: $0.client, cacheDirectory: root + "/.pdfgate/cache/objects", cacheBytes: 1 << 30, grace: $0.grace)
        }
        if let database { return try await Library.shared(root: root, database: database, objects: objects, reconciling: reconciling) }
        return try await Library.open(root: root, objects: objects, reconciling: reconciling)
    }

    public var root: String { library.paths.root }

    /// Files a copy of a fixture PDF, inspected by the real `pdfinfo`.
    @discardableResult
    public func file(
        _ fixture: String = "one-page.pdf",
        owner: String = "alice",
        folder: FolderReference = .root,
        name: String? = nil,
        conflict: ConflictPolicy = .fail
    ) async throws -> Document {
        let info = try await inspector.inspect(path: Fixtures.pdf(fixture))
        return try await library.file(Fixtures.pdf(fixture), owner: owner, folder: folder, name: name, conflict: conflict, info: info)
    }

    public func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + relative) }
}
