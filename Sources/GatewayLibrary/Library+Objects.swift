import Foundation
import GatewayLibraryModel

/// The bucket's side of filing: bytes up before the row, and taken back when the row is refused.
extension Library {
    /// Hashes `source` and stores it as document `id`'s object; its SHA-256 and size.
    func upload(_ source: String, id: UUID, to objects: any DocumentObjects) async throws(LibraryError) -> (sha256: String, size: Int64) {
        guard FileOps.exists(source), !FileOps.isDirectory(source) else {
            throw LibraryError(.invalidArgument, "no file at '\(source)' to file")
        }
        let digest: (sha256: String, size: Int64)
        do { digest = try FileOps.digest(source) } catch { throw Self.libraryError(error) }
        try await objects.store(source, id: id, sha256: digest.sha256, size: digest.size)
        return digest
    }

    /// Removes an object uploaded for a filing that did not happen, unless a row names it (a
    /// filing of the same id that came first). Failing here leaves it to the janitor.
    func discardUpload(id: UUID, sha256: String, from objects: any DocumentObjects) async {
        let named = try? await catalog.document(id: id.lowercased, owner: nil, readyOnly: false)
        guard named?.record.sha256 != sha256 else { return }
        try? await objects.remove(id: id, sha256: sha256)
    }
}
