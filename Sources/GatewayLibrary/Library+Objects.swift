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

/// Removes the objects no row names once they have gone unnamed for the grace period: those a
/// crash left between upload and row, content replaced since, documents deleted since. It
/// remembers when it first saw each one unnamed, so a document deleted a second ago keeps its
/// object for a whole grace period whatever the object's age, and a download in flight finishes.
public actor ObjectJanitor {
    let library: Library
    private var unnamedSince: [String: Date] = [:]

    public init(library: Library) { self.library = library }

    /// One pass; the objects it removed. Does nothing for a library without objects.
    @discardableResult
    public func sweep(now: Date = Date()) async throws(LibraryError) -> [StoredObject] {
        guard let objects = library.objects else { return [] }
        let grace = Double(objects.grace.components.seconds)
        let unnamed = try await library.unnamed(in: try await objects.inventory())
        var removed: [StoredObject] = []
        var seen: [String: Date] = [:]
        for object in unnamed {
            let since = unnamedSince[object.key] ?? now
            seen[object.key] = since
            let old = (object.lastModified ?? now) < now.addingTimeInterval(-grace)
            guard old, since <= now.addingTimeInterval(-grace), let id = object.id, let sha = object.sha256 else { continue }
            try await objects.remove(id: id, sha256: sha)
            seen[object.key] = nil
            removed.append(object)
        }
        unnamedSince = seen
        for object in removed {
            library.logger.info("library.object_removed", metadata: ["object.key": "\(object.key)"])
        }
        return removed
    }
}

extension Library {
    /// Those of `stored` (a listing made before this call, so an object filed in between is
    /// named by the rows read here) of the library's own layout that no row names; foreign keys
    /// are left out.
    func unnamed(in stored: [StoredObject]) async throws(LibraryError) -> [StoredObject] {
        let named = try await read { catalog in
            Set(try await catalog.readyDocuments().map { "\($0.record.id)/\($0.record.sha256)" })
                .union(try await catalog.unfinishedDocuments().map { "\($0.record.id)/\($0.record.sha256)" })
        }
        return stored.filter { object in
            guard let id = object.id, let sha = object.sha256 else { return false }
            return !named.contains("\(id.lowercased)/\(sha)")
        }
    }
}
