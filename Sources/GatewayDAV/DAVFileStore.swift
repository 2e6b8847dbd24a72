import Foundation
import GatewayHTTPServing
import NIOCore

/// A file in a WebDAV folder that is not a document: what file managers write beside the
/// PDFs (`.DS_Store`, `._name` AppleDouble files, `desktop.ini`) and any other file kept as
/// it is, byte for byte. Only WebDAV shows them; the library, its API and its change feed do not.
struct DAVFile: Sendable {
    var folderID: UUID?
    var name: String
    var size: Int64
    var modified: Date
    var path: String

    /// Changes with every write: size and modification time to the nanosecond. Quoted, as
    /// the `ETag` header and `getetag` show it; `tag` is the part inside the quotes.
    var etag: String { "\"\(tag)\"" }
    var tag: String { "\(size)-\(Int64((modified.timeIntervalSince1970 * 1e9).rounded()))" }
}

/// Keeps `DAVFile`s in the store's own directory, one directory per folder id (so a folder's
/// files follow it through renames and moves without being touched), beside the library's
/// tree rather than in it: fsck and the library see only PDFs. Every node of a cluster shares
/// the store directory, so every node sees the same files. A write lands whole or not at all
/// (written beside its place, synced, renamed over it).
struct DAVFileStore: Sendable {
    let root: String

    init(metaDirectory: String) {
        root = metaDirectory + "/dav-files"
    }

    func directory(owner: String, folderID: UUID?) -> String {
        root + "/" + owner + "/" + (folderID?.lowercased ?? "root")
    }

    func file(owner: String, folderID: UUID?, name: String) -> DAVFile? {
        let path = directory(owner: owner, folderID: folderID) + "/" + name
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return DAVFile(
            folderID: folderID,
            name: name,
            size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
            modified: attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0),
            path: path
        )
    }

    func files(owner: String, folderID: UUID?) -> [DAVFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory(owner: owner, folderID: folderID))) ?? []
        return names.filter { !$0.hasPrefix(Self.partialPrefix) }.sorted().compactMap { file(owner: owner, folderID: folderID, name: $0) }
    }

    /// Writes `body` as the file `name`, replacing any; returns whether it was new.
    func write(
        _ body: some AsyncSequence<ByteBuffer, any Error>,
        owner: String,
        folderID: UUID?,
        name: String,
        maxBytes: Int64
    ) async throws -> Bool {
        let directory = directory(owner: owner, folderID: folderID)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = directory + "/" + name
        let partial = directory + "/" + Self.partialPrefix + UUID().uuidString
        let existed = FileManager.default.fileExists(atPath: target)
        do {
            _ = try await BodyToFile(maxBytes: maxBytes).write(body, to: partial)
            try Self.sync(partial)
            guard rename(partial, target) == 0 else { throw Self.failure("cannot keep \(name)", errno) }
            try Self.sync(directory)
        } catch {
            unlink(partial)
            throw error
        }
        return !existed
    }

    func delete(owner: String, folderID: UUID?, name: String) throws {
        let path = directory(owner: owner, folderID: folderID) + "/" + name
        guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure("cannot delete \(name)", errno) }
    }

    /// Forgets every file of the folders `folderIDs` (deleted with them).
    func deleteFolders(owner: String, _ folderIDs: [UUID]) {
        for id in folderIDs { try? FileManager.default.removeItem(atPath: directory(owner: owner, folderID: id)) }
    }

    func copy(_ file: DAVFile, owner: String, toFolder folderID: UUID?, name: String) throws {
        let directory = directory(owner: owner, folderID: folderID)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let partial = directory + "/" + Self.partialPrefix + UUID().uuidString
        do {
            try FileManager.default.copyItem(atPath: file.path, toPath: partial)
            try Self.sync(partial)
            guard rename(partial, directory + "/" + name) == 0 else { throw Self.failure("cannot copy \(file.name)", errno) }
        } catch {
            unlink(partial)
            throw error
        }
    }

    func move(_ file: DAVFile, owner: String, toFolder folderID: UUID?, name: String) throws {
        let directory = directory(owner: owner, folderID: folderID)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard rename(file.path, directory + "/" + name) == 0 else { throw Self.failure("cannot move \(file.name)", errno) }
        try Self.sync(directory)
    }

    /// Files being written, never listed.
    private static let partialPrefix = ".pdfgate-partial-"

    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("cannot open \(path)", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync \(path)", errno) }
    }

    private static func failure(_ what: String, _ code: Int32) -> APIError {
        if code == ENOSPC { return APIError(.insufficientStorage, "disk_full", "\(what): the disk is full") }
        if code == ENAMETOOLONG { return APIError(.badRequest, "invalid_dav_path", "\(what): the name is too long; use at most 255 bytes") }
        return APIError(.internalServerError, "storage_error", "\(what): \(String(cString: strerror(code)))")
    }
}
