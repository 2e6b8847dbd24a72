import Foundation
import GatewayLibraryModel

extension Library {
    /// Finishes or undoes every operation a crash interrupted; returns what it did, one line each.
    ///
    /// Runs when the library opens. Each rule mirrors a step of the mutation ordering in
    /// `Library`: rows say what was intended, the file system says how far it got.
    @discardableResult
    public func reconcile() async throws(LibraryError) -> [String] {
        try await mutate { [self] () -> [String] in
            var actions: [String] = []
            let (documents, folders) = (try await catalog.unfinishedDocuments(), try await catalog.unfinishedFolders())
            // Folders first: a document's path depends on its folder's.
            for folder in folders {
                switch folder.state {
                case .creating:
                    try await finishFolderCreate(folder)
                    actions.append("created folder \(folder.owner)/\(folder.path)")
                case .deleting, .deletingTree:
                    try await finishFolderDelete(folder)
                    actions.append("deleted folder \(folder.owner)/\(folder.path)")
                case .ready, .filing:
                    guard let before = folder.pathBefore else { continue }
                    let from = absolute(LibraryLayout.folderPath(owner: folder.owner, folderPath: before))
                    let to = absolute(LibraryLayout.folderPath(owner: folder.owner, folderPath: folder.path))
                    if keepsTree && !FileOps.exists(to) && FileOps.exists(from) {
                        try FileOps.renameNoReplace(from, to)
                        try FileOps.fsyncParent(of: from)
                        try FileOps.fsyncParent(of: to)
                    }
                    var done = folder
                    done.pathBefore = nil
                    try await catalog.update(done, subtreeFrom: nil)
                    actions.append("finished moving folder \(folder.owner)/\(before) to \(folder.path)")
                }
            }
            for document in documents {
                // Re-read: a folder fix above may have changed its path.
                guard let current = try await catalog.document(id: document.record.id, owner: nil, readyOnly: false) else { continue }
                if let action = try await finishInterrupted(current) { actions.append(action) }
            }
            await actions += try sweepLeftovers()
            for action in actions { logger.notice("library.recovered", metadata: ["action": "\(action)"]) }
            return actions
        }
    }

    /// Finishes or undoes the operation a crash left on a document's row; nil when there was none.
    func finishInterrupted(_ current: DocumentWithPath) async throws -> String? {
        switch current.record.state {
        case .filing:
            return try await finishFiling(current)
        case .deleting, .deletingTree:
            try await finishDocumentDelete(current)
            return "deleted \(current.relativePath)"
        case .ready, .creating:
            guard let before = current.record.pathBefore else { return nil }
            let from = absolute(before)
            let to = absolute(current.relativePath)
            if keepsTree && !FileOps.exists(to) && FileOps.exists(from) {
                try FileOps.renameNoReplace(from, to)
                try FileOps.fsyncParent(of: to)
                try FileOps.fsyncParent(of: from)
            }
            var done = current.record
            done.pathBefore = nil
            try await catalog.update(done)
            return "finished moving \(before) to \(current.relativePath)"
        }
    }

    /// Publishes a filing a crash cut short, or forgets it when nothing whole is left to publish.
    private func finishFiling(_ current: DocumentWithPath) async throws -> String {
        let record = current.record
        if let staged = record.stagedPath, let size = FileOps.size(staged) {
            // A move's cross-file-system copy is renamed in whole, so a staged file shorter than
            // its source was cut short by a build that copied in place. Its source is still where
            // it was (a move deletes it only once filed): dropping loses nothing, publishing
            // would file a broken PDF. Anything else may be a user's only copy, and is filed.
            guard size >= record.size else {
                try await catalog.deleteDocument(id: record.id)
                try FileOps.removeFile(staged)
                return "dropped half-copied filing of \(current.relativePath)"
            }
            let filed = try await publish(record, folderPath: current.folderPath, staged: .recovered, conflict: .rename)
            return "finished filing \(filed.relativePath)"
        }
        // Nothing staged: the rename into the tree happened and only the ready mark is missing,
        // if the file there holds the recorded bytes. Otherwise it is a stranger's (a move that
        // gave its source back on a clash, then died) and stays one, for fsck to report.
        if let objects {
            // Bytes go up before the row is written: the object is there unless the upload was
            // taken back, and then the row goes too.
            guard let id = UUID(uuidString: record.id), try await objects.contains(id: id, sha256: record.sha256, size: record.size) else {
                try await catalog.deleteDocument(id: record.id)
                return "dropped unfinished filing of \(current.relativePath)"
            }
            _ = try await publish(record, folderPath: current.folderPath, staged: .recovered, conflict: .rename)
            return "finished filing \(current.relativePath)"
        }
        let target = absolute(current.relativePath)
        if FileOps.exists(target) {
            let found = try FileOps.digest(target)
            if found.size == record.size && found.sha256 == record.sha256 {
                _ = try await publish(record, folderPath: current.folderPath, staged: .recovered, conflict: .rename)
                return "finished filing \(current.relativePath)"
            }
        }
        try await catalog.deleteDocument(id: record.id)
        return "dropped unfinished filing of \(current.relativePath)"
    }

    /// Files in `.pdfgate/filing` that no row claims (a crash before the row was written) and
    /// whatever a recursive delete left in the trash.
    func sweepLeftovers() async throws -> [String] {
        let claimed = try await catalog.stagedPaths()
        var actions: [String] = []
        for entry in FileOps.list(paths.filing) where !claimed.contains(paths.filing + "/" + entry) {
            try FileOps.removeFile(paths.filing + "/" + entry)
            actions.append("removed leftover .pdfgate/filing/\(entry)")
        }
        for entry in FileOps.list(paths.trash) {
            try FileOps.removeTree(paths.trash + "/" + entry)
            actions.append("emptied .pdfgate/trash/\(entry)")
        }
        return actions
    }
}
