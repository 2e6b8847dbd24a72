import Foundation
import GatewayCore
import GatewayStore
import GatewayTestSupport

/// A library in its own temp store, with helpers to file real fixture PDFs.
struct LibraryFixture {
    let directory = TemporaryDirectory("library")
    let library: Library
    let inspector = PdfinfoInspector()

    init() throws {
        library = try Library(root: directory.path + "/store")
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
        return try library.file(Fixtures.pdf(fixture), owner: owner, folder: folder, name: name, conflict: conflict, info: info)
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root + "/" + relative) }
}
