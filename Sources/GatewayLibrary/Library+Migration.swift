import Foundation
import GatewayLibraryModel

/// What a move of documents' bytes between the folder tree and a bucket did.
public struct MigrationReport: Sendable, Equatable {
    /// Documents whose bytes were copied, and how many bytes that was.
    public var copied = 0
    public var bytes: Int64 = 0
    /// Documents already at the destination with the same bytes (an earlier run's).
    public var alreadyThere = 0
    /// One line per document that could not be copied; a later run tries it again.
    public var failures: [String] = []
}

/// `pdfgate migrate`: every ready document's bytes copied from where this library keeps them to
/// the other kind of storage, checked by their SHA-256, with ids, names, folders and versions
/// unchanged (the rows do not move). Resumable and idempotent: what is there already is skipped.
/// Nothing is removed from the source; the operator switches `--documents` once it is done.
extension Library {
    /// From the folder tree into `objects` (the server checks each upload against its hash).
    public func copyDocuments(into objects: any DocumentObjects) async throws -> MigrationReport {
        guard keepsTree else { throw LibraryError(.invalidArgument, "this library's documents are in \(objects.location) already") }
        var report = MigrationReport()
        let present = Set(
            try await objects.inventory().compactMap { object in object.id.map { "\($0.lowercased)/\(object.sha256 ?? "")/\(object.size)" } }
        )
        for row in try await read({ try await $0.readyDocuments() }) {
            let record = row.record
            guard !present.contains("\(record.id)/\(record.sha256)/\(record.size)") else {
                report.alreadyThere += 1
                continue
            }
            do {
                guard let id = UUID(uuidString: record.id) else { throw LibraryError(.storage, "row id \(record.id) is not a UUID") }
                try await objects.store(absolute(row.relativePath), id: id, sha256: record.sha256, size: record.size)
                report.copied += 1
                report.bytes += record.size
            } catch {
                report.failures.append("\(row.relativePath): \(Self.libraryError(error).message)")
            }
        }
        return report
    }

    /// From this library's bucket into the folder tree under `paths.root`, each file written
    /// beside its place, hashed, fsynced and renamed in.
    public func copyDocumentsToTree() async throws -> MigrationReport {
        guard let objects else { throw LibraryError(.invalidArgument, "this library's documents are in its folder tree already") }
        var report = MigrationReport()
        for folder in try await read({ try await $0.readyFolders() }) {
            try FileOps.makeDirectories(absolute(LibraryLayout.folderPath(owner: folder.owner, folderPath: folder.path)))
        }
        for row in try await read({ try await $0.readyDocuments() }) {
            let record = row.record
            let target = absolute(row.relativePath)
            if FileOps.size(target) == record.size, (try? FileOps.digest(target).sha256) == record.sha256 {
                report.alreadyThere += 1
                continue
            }
            let partial = target + ".migrating"
            do {
                let cached = try await objects.localFile(id: row.document.id, sha256: record.sha256, size: record.size)
                try FileOps.makeDirectories((target as NSString).deletingLastPathComponent)
                try FileOps.removeFile(partial)
                let copied = try FileOps.copy(from: cached, to: partial)
                guard copied.sha256 == record.sha256 else {
                    throw LibraryError(
                        .storage,
                        "the object holds other bytes than the row records (sha256 \(copied.sha256.prefix(12))…); run `pdfgate fsck`"
                    )
                }
                guard rename(partial, target) == 0 else { throw FileOpsError(errno: errno, operation: "rename", path: partial, other: target) }
                try FileOps.fsyncParent(of: target)
                report.copied += 1
                report.bytes += record.size
            } catch {
                try? FileOps.removeFile(partial)
                report.failures.append("\(row.relativePath): \(Self.libraryError(error).message)")
            }
        }
        return report
    }
}
