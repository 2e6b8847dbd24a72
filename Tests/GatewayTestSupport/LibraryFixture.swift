import Foundation
import GatewayAssembly
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

    public init(_ backend: StoreBackend = .sqlite) async throws {
        switch backend {
        case .sqlite:
            database = nil
            library = try await Library.open(root: directory.path + "/store")
        case .postgres:
            let database = try await PostgresDatabase.open(url: try TestPostgres.freshDatabaseURL())
            self.database = database
            library = try await Library.shared(root: directory.path + "/store", database: database)
        }
    }

    /// The same library opened again, as another process or node would.
    public func reopen(reconciling: Bool = true) async throws -> Library {
        if let database { return try await Library.shared(root: root, database: database, reconciling: reconciling) }
        return try await Library.open(root: root, reconciling: reconciling)
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
