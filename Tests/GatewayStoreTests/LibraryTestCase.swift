import Foundation
import GatewayAssembly
import GatewayCore
import GatewayPostgres
import GatewayStore
import GatewayTestSupport

/// A library in its own temp store, with helpers to file real fixture PDFs: rows in the
/// store's SQLite file, or in a fresh PostgreSQL database of the tests' server.
struct LibraryFixture {
    let directory = TemporaryDirectory("library")
    let library: Library
    let inspector = PdfinfoInspector()
    /// Set for `.postgres`: where the rows are, for `reopen()`.
    let database: PostgresDatabase?

    init(_ backend: StoreBackend = .sqlite) async throws {
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
    func reopen(reconciling: Bool = true) async throws -> Library {
        if let database { return try await Library.shared(root: root, database: database, reconciling: reconciling) }
        return try await Library.open(root: root, reconciling: reconciling)
    }

    var root: String { library.paths.root }

    /// Files a copy of a fixture PDF, inspected by the real `pdfinfo`.
    @discardableResult
    func file(
        _ fixture: String = "one-page.pdf",
        owner: String = "alice",
        folder: FolderReference = .root,
        name: String? = nil,
        conflict: ConflictPolicy = .fail
    ) async throws -> Document {
        let info = try await inspector.inspect(path: Fixtures.pdf(fixture))
        return try await library.file(Fixtures.pdf(fixture), owner: owner, folder: folder, name: name, conflict: conflict, info: info)
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + relative) }
}
