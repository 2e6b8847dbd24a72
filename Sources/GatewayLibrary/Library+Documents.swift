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
        id: UUID = UUID(),
        stored: (sha256: String, size: Int64)? = nil
    ) async throws(LibraryError) -> Document {
        try LibraryNames.validateOwner(owner)
        let desired = try LibraryNames.documentName(name ?? ((source as NSString).lastPathComponent))
        guard FileOps.exists(source), !FileOps.isDirectory(source) else {
            throw LibraryError(.invalidArgument, "no file at '\(source)' to file")
        }
        let staged = paths.filing + "/" + id.lowercased + ".pdf"
        // A bucket gets the bytes before the row exists and outside the lock, so nodes upload
        // side by side; a crash in between leaves an object no row names, which the janitor
        // removes. The row then only needs marking ready.
        // `stored`: the caller uploaded it already, outside a lock it holds.
        var uploaded = stored
        if let objects, uploaded == nil { uploaded = try await upload(source, id: id, to: objects) }
        do {
            let filed = try await fileRow(
                source,
                staged: staged,
                uploaded: uploaded,
                mode: mode,
                owner: owner,
                folder: folder,
                desired: desired,
                conflict: conflict,
                info: info,
                id: id
            )
            if uploaded != nil, mode == .move { try? FileOps.removeFile(source) }
            return filed
        } catch {
            if let uploaded, let objects { await discardUpload(id: id, sha256: uploaded.sha256, from: objects) }
            throw error
        }
    }

    private func fileRow(
        _ source: String,
        staged: String,
        uploaded: (sha256: String, size: Int64)?,
        mode: FilingMode,
        owner: String,
        folder: FolderReference,
        desired: String,
        conflict: ConflictPolicy,
        info: PDFInfo,
        id: UUID
    ) async throws(LibraryError) -> Document {
        try await mutate { [self] in
            if let row = try await catalog.document(id: id.lowercased, owner: nil, readyOnly: false) {
                if row.record.state == .ready && row.record.pathBefore == nil { return row.document }
                // A row mid-operation under this id is one a dead process left (this lock
                // excludes every live one): another node resuming the job finishes it first.
                _ = try await finishInterrupted(row)
                if let existing = try await existingDocument(id: id) { return existing }
            }
            if keepsTree { try FileOps.makeDirectories(absolute(owner)) }
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
            let sha256: String
            let size: Int64
            if let uploaded {
                (sha256, size) = uploaded
            } else {
                try FileOps.removeFile(staged)
                (sha256, size) = mode == .copy ? try FileOps.copy(from: source, to: staged) : try FileOps.digest(source)
            }
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
            guard uploaded == nil else {
                try await catalog.insert(record)
                return try await publish(record, folderPath: folderPath, staged: .recovered, conflict: conflict).document
            }
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
        return try await file(readableFile(of: original), mode: .copy, owner: owner, folder: folder, name: name, info: original.info)
    }

    /// A local file holding the document's PDF: its place in the tree, or a cached copy of its
    /// object.
    public func readableFile(of document: Document) async throws(LibraryError) -> String {
        guard let objects else { return absolute(document.relativePath) }
        return try await objects.localFile(id: document.id, sha256: document.sha256, size: document.size)
    }

    public func directDownloadURL(of document: Document, expires: Duration) -> String? {
        objects?.downloadURL(id: document.id, sha256: document.sha256, filename: document.name + ".pdf", expires: expires)
    }

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
            if keepsTree { try await moveFile(from: plan.before, to: plan.after) }
            var done = plan.after.record
            done.pathBefore = nil
            return try await catalog.update(done).document
        }
    }

    /// The file-system side of a rename or move: one no-replace rename, then fsyncs. On failure
    /// the row goes back to `before`.
    private func moveFile(from before: DocumentWithPath, to after: DocumentWithPath) async throws {
        let from = absolute(before.relativePath)
        let to = absolute(after.relativePath)
        do {
            try FileOps.renameNoReplace(from, to)
        } catch let error as FileOpsError {
            try await catalog.update(before.record)
            if error.errno == EEXIST {
                throw LibraryError(
                    .nameConflict,
                    "'\(after.relativePath)' already exists on disk but not in the library; run `pdfgate fsck --repair` to adopt it, or choose another name"
                )
            }
            throw error
        }
        try FileOps.fsyncParent(of: to)
        if before.record.folderID != after.record.folderID { try FileOps.fsyncParent(of: from) }
    }

    /// Puts the PDF at `source` (taken) in place of a document's file: the id, name and folder
    /// stay. The file is swapped by one `rename` (readers see the old PDF or the new, never a
    /// mix); a crash between it and the row's update leaves a size and hash that `pdfgate fsck
    /// --repair` re-reads.
    @discardableResult
    public func replaceDocumentContent(
        id: UUID,
        owner: String,
        with source: String,
        info: PDFInfo,
        stored: (sha256: String, size: Int64)? = nil
    ) async throws(LibraryError) -> Document {
        try await mutate { [self] in
            var current = try await fetchDocument(id: id, owner: owner)
            let (sha256, size) = try stored ?? FileOps.digest(source)
            if let objects {
                // A new object beside the old, which stays until the janitor sees no row name it.
                if stored == nil { try await objects.store(source, id: id, sha256: sha256, size: size) }
                try FileOps.removeFile(source)
            } else {
                try swapFile(source, into: current.relativePath)
            }
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

    /// Puts `source` at `relativePath` with one rename (a copy beside it first across file systems).
    private func swapFile(_ source: String, into relativePath: String) throws {
        let target = absolute(relativePath)
        if rename(source, target) != 0 {
            guard errno == EXDEV else {
                throw LibraryError(.storage, "cannot replace \(relativePath): \(String(cString: strerror(errno)))")
            }
            // Another file system: copy beside the target first, so the swap stays one rename.
            let partial = target + ".replacing-\(UUID().lowercased)"
            _ = try FileOps.copy(from: source, to: partial)
            guard rename(partial, target) == 0 else {
                try? FileOps.removeFile(partial)
                throw LibraryError(.storage, "cannot replace \(relativePath): \(String(cString: strerror(errno)))")
            }
            try FileOps.removeFile(source)
        }
        try FileOps.fsyncParent(of: target)
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

    /// In a bucket, the object stays until the janitor finds no row naming it, after a grace
    /// period that lets a download in progress finish.
    func finishDocumentDelete(_ doomed: DocumentWithPath) async throws {
        if keepsTree {
            let file = absolute(doomed.relativePath)
            try FileOps.removeFile(file)
            if FileOps.exists((file as NSString).deletingLastPathComponent) { try FileOps.fsyncParent(of: file) }
        }
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
            let onDisk = keepsTree && FileOps.exists(absolute(LibraryLayout.documentPath(owner: owner, folderPath: folderPath, name: candidate)))
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
