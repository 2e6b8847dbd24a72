import Foundation
import GatewayLibraryModel

extension Library {
    /// Files the PDF at `source` into the library.
    ///
    /// - Parameters:
    ///   - info: what the inspector read from `source`; the caller inspects before filing.
    ///   - id: the new document's id; filing twice with the same id returns the first document,
    ///     which is how a job files exactly once across crashes and retries.
    ///   - name: defaults to the source's file name without `.pdf`.
    public func file(
        _ source: String,
        mode: FilingMode = .copy,
        owner: String,
        folder: FolderReference = .root,
        name: String? = nil,
        conflict: ConflictPolicy = .fail,
        info: PDFInfo,
        id: UUID = UUID()
    ) async throws(LibraryError) -> Document {
        try LibraryNames.validateOwner(owner)
        let desired = try LibraryNames.documentName(name ?? ((source as NSString).lastPathComponent))
        guard FileOps.exists(source), !FileOps.isDirectory(source) else {
            throw LibraryError(.invalidArgument, "no file at '\(source)' to file")
        }
        let staged = paths.filing + "/" + id.lowercased + ".pdf"
        return try await mutate { [self] in
            if let row = try await catalog.document(id: id.lowercased, owner: nil, readyOnly: false) {
                if row.record.state == .ready && row.record.pathBefore == nil { return row.document }
                // A row mid-operation under this id is one a dead process left (this lock
                // excludes every live one): another node resuming the job finishes it first.
                _ = try await finishInterrupted(row)
                if let existing = try await existingDocument(id: id) { return existing }
            }
            try FileOps.makeDirectories(absolute(owner))
            let folderRecord: FolderRecord?
            switch folder {
            case .path(let path):
                let names = try LibraryNames.folderPath(path)
                folderRecord = await names.isEmpty ? nil : try ensureFolder(owner: owner, names: names)
            default:
                folderRecord = try await resolveFolder(owner: owner, folder)
            }
            // Bring the bytes in beside the tree first; with no row yet, a crash here leaves
            // only a copy in .pdfgate/filing, which recovery deletes. A move keeps the source
            // where it is until the row exists, so nothing is lost either way.
            try FileOps.removeFile(staged)
            let (sha256, size) = mode == .copy ? try FileOps.copy(from: source, to: staged) : try FileOps.digest(source)
            let folderPath = folderRecord?.path ?? ""
            var record = await DocumentRecord(
                id: id,
                owner: owner,
                folderID: folderRecord?.id ?? "",
                name: try freeDocumentName(
                    owner: owner,
                    folderID: folderRecord?.id ?? "",
                    folderPath: folderPath,
                    desired: desired,
                    policy: conflict
                ),
                size: size,
                sha256: sha256,
                info: info,
                state: .filing,
                now: Date()
            )
            record.stagedPath = staged
            try await catalog.insert(record)
            let stagedFile = mode == .move ? try takeIn(source, at: staged) : .copy
            let filed = try await publish(record, folderPath: folderPath, staged: stagedFile, conflict: conflict)
            // A move across file systems copied: the source goes only now that the copy is filed.
            if mode == .move, case .copy = stagedFile { try FileOps.removeFile(source) }
            return filed.document
        }
    }

    /// A ready document of `owner`, or `document_not_found`.
    public func document(id: UUID, owner: String) async throws(LibraryError) -> Document {
        try await read { _ in try await fetchDocument(id: id, owner: owner).document }
    }

    /// Absolute path of a document's PDF.
    public func document(named name: String, in folder: FolderReference, owner: String) async throws(LibraryError) -> Document? {
        try await read { catalog in
            let folderID = try await resolveFolder(owner: owner, folder)?.id ?? ""
            return try await catalog.document(owner: owner, folderID: folderID, name: name)?.document
        }
    }

    @discardableResult
    public func copyDocument(id: UUID, owner: String, to folder: FolderReference, name: String) async throws(LibraryError) -> Document {
        let original = try await document(id: id, owner: owner)
        return try await file(filePath(of: original), mode: .copy, owner: owner, folder: folder, name: name, info: original.info)
    }

    public func filePath(of document: Document) -> String { absolute(document.relativePath) }

    /// Renames and/or moves a document; its id stays. Nil arguments keep the current value.
    @discardableResult
    public func updateDocument(
        id: UUID,
        owner: String,
        name: String? = nil,
        folder: FolderReference? = nil,
        conflict: ConflictPolicy = .fail
    ) async throws(LibraryError) -> Document {
        let newName = try name.map { name throws(LibraryError) in try LibraryNames.documentName(name) }
        let lookup = try folder.map { folder throws(LibraryError) in try Self.lookup(folder) }
        return try await mutate { [self] in
            let plan = try await { () async throws -> (before: DocumentWithPath, after: DocumentWithPath) in
                // One read: the document, the folder it goes to (its own for a rename: this lock
                // keeps that as it is) and whether the name is free there.
                guard let placement = try await catalog.placement(ofDocument: id.lowercased, owner: owner, to: lookup, name: newName) else {
                    throw Self.documentNotFound(id)
                }
                let current = placement.document
                guard let (folderID, folderPath) = placement.folder else { throw Self.folderNotFound(folder ?? .root) }
                let desired = newName ?? current.record.name
                if folderID == current.record.folderID && desired == current.record.name { return (current, current) }
                var moved = current
                moved.folderPath = folderPath
                moved.record.folderID = folderID
                moved.record.name = try await freeDocumentName(
                    owner: owner,
                    folderID: folderID,
                    folderPath: moved.folderPath,
                    desired: desired,
                    policy: conflict,
                    desiredTaken: placement.nameTaken
                )
                moved.record.pathBefore = current.relativePath
                moved.record.updatedAt = Date()
                try await catalog.update(moved.record)
                return (current, moved)
            }()
            guard plan.before.relativePath != plan.after.relativePath else { return plan.after.document }
            let from = absolute(plan.before.relativePath)
            let to = absolute(plan.after.relativePath)
            do {
                try FileOps.renameNoReplace(from, to)
            } catch let error as FileOpsError {
                try await catalog.update(plan.before.record)
                if error.errno == EEXIST {
                    throw LibraryError(
                        .nameConflict,
                        "'\(plan.after.relativePath)' already exists on disk but not in the library; run `pdfgate fsck --repair` to adopt it, or choose another name"
                    )
                }
                throw error
            }
            try FileOps.fsyncParent(of: to)
            if plan.before.record.folderID != plan.after.record.folderID { try FileOps.fsyncParent(of: from) }
            var done = plan.after.record
            done.pathBefore = nil
            return try await catalog.update(done).document
        }
    }

    /// Puts the PDF at `source` (taken) in place of a document's file: the id, name and folder
    /// stay. The file is swapped by one `rename` (readers see the old PDF or the new, never a
    /// mix); a crash between it and the row's update leaves a size and hash that `pdfgate fsck
    /// --repair` re-reads.
    @discardableResult
    public func replaceDocumentContent(id: UUID, owner: String, with source: String, info: PDFInfo) async throws(LibraryError) -> Document {
        try await mutate { [self] in
            var current = try await fetchDocument(id: id, owner: owner)
            let target = absolute(current.relativePath)
            let (sha256, size) = try FileOps.digest(source)
            if rename(source, target) != 0 {
                guard errno == EXDEV else {
                    throw LibraryError(.storage, "cannot replace \(current.relativePath): \(String(cString: strerror(errno)))")
                }
                // Another file system: copy beside the target first, so the swap stays one rename.
                let partial = target + ".replacing-\(UUID().lowercased)"
                _ = try FileOps.copy(from: source, to: partial)
                guard rename(partial, target) == 0 else {
                    try? FileOps.removeFile(partial)
                    throw LibraryError(.storage, "cannot replace \(current.relativePath): \(String(cString: strerror(errno)))")
                }
                try FileOps.removeFile(source)
            }
            try FileOps.fsyncParent(of: target)
            current.record.size = size
            current.record.sha256 = sha256
            current.record.info = info
            current.record.updatedAt = Date()
            let replaced = try await catalog.update(current.record)
            textFiled()
            try FileOps.removeFile(thumbnailPath(current.record.id))
            return replaced.document
        }
    }

    /// Deletes a document and its file.
    public func deleteDocument(id: UUID, owner: String) async throws(LibraryError) {
        try await mutate { [self] in
            var doomed = try await fetchDocument(id: id, owner: owner)
            doomed.record.state = .deleting
            try await catalog.update(doomed.record)
            try await finishDocumentDelete(doomed)
        }
    }

    func finishDocumentDelete(_ doomed: DocumentWithPath) async throws {
        let file = absolute(doomed.relativePath)
        try FileOps.removeFile(file)
        if FileOps.exists((file as NSString).deletingLastPathComponent) { try FileOps.fsyncParent(of: file) }
        try FileOps.removeFile(thumbnailPath(doomed.record.id))
        try await catalog.deleteDocument(id: doomed.record.id)
    }

    func existingDocument(id: UUID) async throws -> Document? {
        try await catalog.document(id: id.lowercased, owner: nil, readyOnly: true)?.document
    }

    func fetchDocument(id: UUID, owner: String) async throws -> DocumentWithPath {
        guard let found = try await catalog.document(id: id.lowercased, owner: owner, readyOnly: true) else {
            throw Self.documentNotFound(id)
        }
        return found
    }

    static func documentNotFound(_ id: UUID) -> LibraryError {
        LibraryError(.documentNotFound, "no document with id \(id.lowercased); list documents with `pdfgate ls` or GET /v1/documents")
    }

    func freeDocumentName(
        owner: String,
        folderID: String,
        folderPath: String,
        desired: String,
        policy: ConflictPolicy,
        desiredTaken: Bool? = nil
    ) async throws -> String {
        var candidate = desired
        for attempt in 0...9999 {
            if attempt > 0 { candidate = LibraryNames.numbered(desired, attempt) }
            // The desired name's answer may have come with the read that started the change.
            let taken: Bool
            if attempt == 0, let desiredTaken {
                taken = desiredTaken
            } else {
                taken = try await catalog.documentNameTaken(owner: owner, folderID: folderID, name: candidate)
            }
            let onDisk = FileOps.exists(absolute(LibraryLayout.documentPath(owner: owner, folderPath: folderPath, name: candidate)))
            if !taken && !onDisk { return candidate }
            if policy == .fail {
                throw LibraryError(
                    .nameConflict,
                    "a document named '\(candidate)' already exists in '\(folderPath.isEmpty ? "/" : folderPath)'; choose another name or use on_conflict=rename"
                )
            }
        }
        throw LibraryError(.nameConflict, "no free name found for document '\(desired)'")
    }
}
