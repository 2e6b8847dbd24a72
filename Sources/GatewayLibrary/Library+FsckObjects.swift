import Foundation
import GatewayLibraryModel

/// `fsck` for a library whose documents are objects: every row against the bucket's listing
/// (missing objects, wrong sizes, and with `verifyHashes` the bytes' SHA-256), and every object
/// against the rows (orphans past the grace period).
extension Library {
    func compare(_ documents: [DocumentWithPath], with objects: any DocumentObjects, repair: Bool, verifyHashes: Bool) async throws -> [FsckIssue] {
        var issues: [FsckIssue] = []
        let stored = try await objects.inventory()
        let byName = Dictionary(stored.compactMap { object in object.id.map { ("\($0.lowercased)/\(object.sha256 ?? "")", object) } }) { first, _ in
            first
        }
        for document in documents {
            let record = document.record
            let name = "\(record.id)/\(record.sha256)"
            guard let object = byName[name] else {
                // The bytes are gone from the bucket: nothing to mend them from, so the row goes (as
                // a tree's row whose file is gone).
                if repair { try await mutate { [self] in try await catalog.deleteDocument(id: record.id) } }
                issues.append(
                    FsckIssue(
                        kind: .missingFile,
                        path: document.relativePath,
                        detail: "document \(record.id) has no object in \(objects.location)",
                        repaired: repair
                    )
                )
                continue
            }
            var found = (sha256: record.sha256, size: object.size)
            if verifyHashes && object.size == record.size, let id = UUID(uuidString: record.id) {
                found = try FileOps.digest(try await objects.localFile(id: id, sha256: record.sha256, size: record.size))
            }
            guard found.size != record.size || found.sha256 != record.sha256 else { continue }
            // An object's name is its hash: one whose bytes differ is damaged, not a newer version.
            issues.append(
                FsckIssue(
                    kind: .contentDrift,
                    path: document.relativePath,
                    detail:
                        "object \(object.key) holds \(found.size) bytes sha256 \(found.sha256.prefix(12))…, the row records \(record.size) bytes sha256 \(record.sha256.prefix(12))…; restore it from a copy",
                    repaired: false
                )
            )
        }
        let graceStart = Date().addingTimeInterval(-Double(objects.grace.components.seconds))
        for object in try await unnamed(in: stored) where (object.lastModified ?? Date()) < graceStart {
            if repair, let id = object.id, let sha = object.sha256 { try await objects.remove(id: id, sha256: sha) }
            issues.append(
                FsckIssue(
                    kind: .orphanObject,
                    path: object.key,
                    detail: "no document names this object (\(object.size) bytes); a filing a crash cut short, or content replaced or deleted",
                    repaired: repair
                )
            )
        }
        for object in stored where object.id == nil || object.sha256 == nil {
            issues.append(
                FsckIssue(kind: .foreignFile, path: object.key, detail: "not an object the library wrote; move it out of the prefix", repaired: false)
            )
        }
        return issues
    }
}
