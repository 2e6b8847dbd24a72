import Foundation
import GatewayLibraryModel

extension Library {
    /// The folder a reference names, or nil for the root. Throws `folder_not_found`.
    public func folder(_ reference: FolderReference, owner: String) async throws(LibraryError) -> Folder? {
        try await read { _ in try await resolveFolder(owner: owner, reference)?.folder }
    }

    /// Creates the folder at `path` and any missing parents (like `mkdir -p`); returns the last.
    @discardableResult
    public func createFolder(path: String, owner: String) async throws(LibraryError) -> Folder {
        try LibraryNames.validateOwner(owner)
        let names = try LibraryNames.folderPath(path)
        guard !names.isEmpty else {
            throw LibraryError(.invalidPath, "folder path '\(path)' names the root folder, which always exists; give a path like 'Invoices/2026'")
        }
        return try await mutate { [self] in try await ensureFolder(owner: owner, names: names).folder }
    }

    /// Folders directly under `parent`, or its whole subtree, ordered by path.
    public func listFolders(owner: String, parent: FolderReference = .root, recursive: Bool = false) async throws(LibraryError) -> [Folder] {
        try await read { catalog in
            let parentRecord = try await resolveFolder(owner: owner, parent)
            let records =
                await recursive
                ? try catalog.folders(owner: owner, under: parentRecord?.path)
                : try catalog.folders(owner: owner, parentID: parentRecord?.id ?? "")
            return records.map(\.folder)
        }
    }

    /// Renames and/or moves a folder with everything in it; its id and its documents' ids stay.
    @discardableResult
    public func updateFolder(
        _ reference: FolderReference,
        owner: String,
        name: String? = nil,
        parent: FolderReference? = nil,
        conflict: ConflictPolicy = .fail
    ) async throws(LibraryError) -> Folder {
        let newName = try name.map { name throws(LibraryError) in try LibraryNames.folderName(name) }
        return try await mutate { [self] in
            let (before, after) = try await { () async throws -> (FolderRecord, FolderRecord) in
                guard let record = try await resolveFolder(owner: owner, reference) else {
                    throw LibraryError(.invalidArgument, "the root folder cannot be renamed or moved")
                }
                let target = try await resolveFolder(owner: owner, parent ?? Self.parentReference(of: record))
                if let target, target.path == record.path || target.path.hasPrefix(record.path + "/") {
                    throw LibraryError(.invalidMove, "cannot move folder '\(record.path)' into itself or its subfolder '\(target.path)'")
                }
                var name = newName ?? record.name
                let parentID = target?.id ?? ""
                if parentID == record.parentID && name == record.name { return (record, record) }
                name = try await freeFolderName(owner: owner, parentID: parentID, parentPath: target?.path ?? "", desired: name, policy: conflict)
                var moved = record
                moved.parentID = parentID
                moved.name = name
                moved.path = Self.join(target?.path ?? "", name)
                // Its deepest subfolder moves with it, and must still fit (LibraryNames.maxFolderDepth).
                for folder in try await catalog.folders(owner: owner, under: record.path) {
                    let path = moved.path + folder.path.dropFirst(record.path.count)
                    try LibraryNames.checkFolderPath(path, depth: path.split(separator: "/").count)
                }
                moved.pathBefore = record.path
                moved.updatedAt = Date()
                try await catalog.update(moved, subtreeFrom: record.path)
                return (record, moved)
            }()
            guard before.path != after.path else { return after.folder }
            if keepsTree { try await moveDirectory(from: before, to: after) }
            var done = after
            done.pathBefore = nil
            try await catalog.update(done, subtreeFrom: nil)
            return done.folder
        }
    }

    /// The file-system side of a folder rename or move; on failure the rows go back to `before`.
    private func moveDirectory(from before: FolderRecord, to after: FolderRecord) async throws {
        let owner = before.owner
        let from = absolute(LibraryLayout.folderPath(owner: owner, folderPath: before.path))
        let to = absolute(LibraryLayout.folderPath(owner: owner, folderPath: after.path))
        do {
            try FileOps.renameNoReplace(from, to)
        } catch let error as FileOpsError {
            try await catalog.update(before, subtreeFrom: after.path)
            if error.errno == EEXIST {
                throw LibraryError(
                    .nameConflict,
                    "'\(after.path)' already exists on disk but not in the library; run `pdfgate fsck --repair` to adopt it, or choose another name"
                )
            }
            throw error
        }
        try FileOps.fsyncParent(of: from)
        try FileOps.fsyncParent(of: to)
    }

    /// Deletes a folder: only when empty, or with everything in it when `recursive`.
    public func deleteFolder(_ reference: FolderReference, owner: String, recursive: Bool = false) async throws(LibraryError) {
        try await mutate { [self] in
            let record = try await { () async throws -> FolderRecord in
                guard var record = try await resolveFolder(owner: owner, reference) else {
                    throw LibraryError(.invalidArgument, "the root folder cannot be deleted")
                }
                if !recursive {
                    let (documents, folders) = try await catalog.contents(ofFolder: record.id)
                    if documents + folders > 0 {
                        throw LibraryError(
                            .folderNotEmpty,
                            "folder '\(record.path)' holds \(documents) document(s) and \(folders) folder(s); empty it first, or delete it with recursive=true"
                        )
                    }
                }
                record.state = recursive ? .deletingTree : .deleting
                try await catalog.update(record, subtreeFrom: nil)
                return record
            }()
            try await finishFolderDelete(record)
        }
    }

    /// Step 2 and 3 of a folder delete; also what recovery runs for an interrupted one.
    func finishFolderDelete(_ record: FolderRecord) async throws {
        guard keepsTree else {
            let removed = record.state == .deletingTree ? try await catalog.deleteTree(owner: record.owner, path: record.path) : []
            for id in removed { try FileOps.removeFile(thumbnailPath(id)) }
            if record.state != .deletingTree { try await catalog.deleteFolder(id: record.id) }
            return
        }
        let directory = absolute(LibraryLayout.folderPath(owner: record.owner, folderPath: record.path))
        if record.state == .deletingTree {
            let trashed = paths.trash + "/" + record.id
            try FileOps.removeTree(trashed)
            if FileOps.exists(directory) {
                try FileOps.renameNoReplace(directory, trashed)
                try FileOps.fsyncParent(of: directory)
            }
            let removed = try await catalog.deleteTree(owner: record.owner, path: record.path)
            for id in removed { try FileOps.removeFile(thumbnailPath(id)) }
            try FileOps.removeTree(trashed)
        } else {
            if rmdir(directory) != 0 && errno != ENOENT {
                let failure = errno
                var ready = record
                ready.state = .ready
                try await catalog.update(ready, subtreeFrom: nil)
                if failure == ENOTEMPTY {
                    throw LibraryError(
                        .folderNotEmpty,
                        "folder '\(record.path)' holds files that are not in the library; run `pdfgate fsck --repair` to adopt them, or delete it with recursive=true"
                    )
                }
                throw FileOpsError(errno: failure, operation: "rmdir", path: directory)
            }
            try FileOps.fsyncParent(of: directory)
            try await catalog.deleteFolder(id: record.id)
        }
    }

    /// Finds or creates each folder of `names` in turn, the last with `leafID` if it is created;
    /// call under the mutation lock.
    func ensureFolder(owner: String, names: [String], leafID: UUID? = nil) async throws -> FolderRecord {
        if keepsTree { try FileOps.makeDirectories(absolute(owner)) }
        var parent: FolderRecord?
        for (index, name) in names.enumerated() {
            let parentID = parent?.id ?? ""
            let path = Self.join(parent?.path ?? "", name)
            let directory = absolute(LibraryLayout.folderPath(owner: owner, folderPath: path))
            var record = try await { () async throws -> FolderRecord in
                if let existing = try await catalog.childFolder(owner: owner, parentID: parentID, name: name) {
                    guard existing.state == .ready || existing.state == .creating else {
                        throw LibraryError(.nameConflict, "folder '\(path)' is being deleted; try again in a moment")
                    }
                    return existing
                }
                if keepsTree && FileOps.exists(directory) && !FileOps.isDirectory(directory) {
                    throw LibraryError(.nameConflict, "a file named '\(path)' is in the way of that folder; rename it first")
                }
                let now = Date()
                let record = FolderRecord(
                    id: (index == names.count - 1 ? leafID : nil)?.lowercased ?? UUID().lowercased,
                    owner: owner,
                    parentID: parentID,
                    name: name,
                    path: path,
                    state: .creating,
                    pathBefore: nil,
                    createdAt: now,
                    updatedAt: now
                )
                try await catalog.insert(record)
                return record
            }()
            if record.state == .creating {
                try await finishFolderCreate(record)
                record.state = .ready
            }
            parent = record
        }
        return parent!
    }

    /// mkdir, fsync, mark ready: the tail of a folder create, also run by recovery.
    func finishFolderCreate(_ record: FolderRecord) async throws {
        if keepsTree {
            let directory = absolute(LibraryLayout.folderPath(owner: record.owner, folderPath: record.path))
            try FileOps.makeDirectories(directory)
            try FileOps.fsyncParent(of: directory)
        }
        var ready = record
        ready.state = .ready
        try await catalog.update(ready, subtreeFrom: nil)
    }

    func resolveFolder(owner: String, _ reference: FolderReference) async throws -> FolderRecord? {
        let record: FolderRecord?
        switch try Self.lookup(reference) {
        case .root: return nil
        case .id(let id): record = try await catalog.folder(id: id, owner: owner)
        case .path(let path): record = try await catalog.folder(owner: owner, path: path)
        }
        guard let record, record.state == .ready else { throw Self.folderNotFound(reference) }
        return record
    }

    /// How the catalog finds the folder `reference` names.
    static func lookup(_ reference: FolderReference) throws(LibraryError) -> FolderLookup {
        switch reference {
        case .root:
            return .root
        case .id(let id):
            return .id(id.lowercased)
        case .path(let path):
            // A path no folder can have names no folder: 404, as for any other missing one.
            guard let names = try? LibraryNames.folderPath(path) else {
                throw LibraryError(.folderNotFound, "no folder \(describe(reference)): it is not a folder path a folder could have")
            }
            return names.isEmpty ? .root : .path(names.joined(separator: "/"))
        }
    }

    static func folderNotFound(_ reference: FolderReference) -> LibraryError {
        LibraryError(.folderNotFound, "no folder \(describe(reference)); list folders with `pdfgate ls` or GET /v1/folders")
    }

    func freeFolderName(owner: String, parentID: String, parentPath: String, desired: String, policy: ConflictPolicy) async throws -> String {
        var candidate = desired
        for attempt in 0...9999 {
            if attempt > 0 { candidate = LibraryNames.numbered(desired, attempt, maxBytes: LibraryNames.maxFolderNameBytes) }
            let taken = try await catalog.childFolder(owner: owner, parentID: parentID, name: candidate) != nil
            let onDisk = keepsTree && FileOps.exists(absolute(LibraryLayout.folderPath(owner: owner, folderPath: Self.join(parentPath, candidate))))
            if !taken && !onDisk { return candidate }
            if policy == .fail {
                throw LibraryError(
                    .nameConflict,
                    "a folder named '\(candidate)' already exists in '\(parentPath.isEmpty ? "/" : parentPath)'; choose another name or use on_conflict=rename"
                )
            }
        }
        throw LibraryError(.nameConflict, "no free name found for folder '\(desired)'")
    }

    static func parentReference(of record: FolderRecord) -> FolderReference {
        record.parentID.isEmpty ? .root : .id(UUID(uuidString: record.parentID)!)
    }

    static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "/" + name }

    static func describe(_ reference: FolderReference) -> String {
        switch reference {
        case .root: return "at the root"
        case .id(let id): return "with id \(id.lowercased)"
        case .path(let path): return "at path '\(path)'"
        }
    }

    func thumbnailPath(_ documentID: String) -> String { paths.thumbnails + "/" + documentID + ".png" }
}
