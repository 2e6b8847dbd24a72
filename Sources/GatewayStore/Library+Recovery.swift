import Foundation
import GRDB
import GatewayCore

extension Library {
    /// Finishes or undoes every operation a crash interrupted; returns what it did, one line each.
    ///
    /// Runs when the library opens. Each rule mirrors a step of the mutation ordering in
    /// `Library`: rows say what was intended, the file system says how far it got.
    @discardableResult
    public func reconcile() throws(LibraryError) -> [String] {
        try mutate { () -> [String] in
            var actions: [String] = []
            let (documents, folders) = try database.pool.read { db in
                (
                    try DocumentWithPath.fetchAll(
                        db,
                        sql: "SELECT \(DocumentWithPath.selection) WHERE documents.state != 'ready' OR documents.path_before IS NOT NULL"
                    ),
                    try FolderRecord.filter(FolderRecord.Columns.state != RowState.ready || FolderRecord.Columns.pathBefore != nil)
                        .order(FolderRecord.Columns.path).fetchAll(db)
                )
            }
            // Folders first: a document's path depends on its folder's.
            for folder in folders {
                switch folder.state {
                case .creating:
                    try finishFolderCreate(folder)
                    actions.append("created folder \(folder.owner)/\(folder.path)")
                case .deleting, .deletingTree:
                    try finishFolderDelete(folder)
                    actions.append("deleted folder \(folder.owner)/\(folder.path)")
                case .ready, .filing:
                    guard let before = folder.pathBefore else { continue }
                    let from = absolute(LibraryLayout.folderPath(owner: folder.owner, folderPath: before))
                    let to = absolute(LibraryLayout.folderPath(owner: folder.owner, folderPath: folder.path))
                    if !FileOps.exists(to) && FileOps.exists(from) {
                        try FileOps.renameNoReplace(from, to)
                        try FileOps.fsyncParent(of: from)
                        try FileOps.fsyncParent(of: to)
                    }
                    var done = folder
                    done.pathBefore = nil
                    try database.pool.write { db in try done.update(db) }
                    actions.append("finished moving folder \(folder.owner)/\(before) to \(folder.path)")
                }
            }
            for document in documents {
                // Re-read: a folder fix above may have changed its path.
                guard
                    let current = try database.pool.read({ db in
                        try DocumentWithPath.fetchOne(
                            db,
                            sql: "SELECT \(DocumentWithPath.selection) WHERE documents.id = ?",
                            arguments: [document.record.id]
                        )
                    })
                else { continue }
                switch current.record.state {
                case .filing:
                    actions.append(try finishFiling(current))
                case .deleting, .deletingTree:
                    try finishDocumentDelete(current)
                    actions.append("deleted \(current.relativePath)")
                case .ready, .creating:
                    guard let before = current.record.pathBefore else { continue }
                    let from = absolute(before)
                    let to = absolute(current.relativePath)
                    if !FileOps.exists(to) && FileOps.exists(from) {
                        try FileOps.renameNoReplace(from, to)
                        try FileOps.fsyncParent(of: to)
                        try FileOps.fsyncParent(of: from)
                    }
                    var done = current.record
                    done.pathBefore = nil
                    try database.pool.write { db in try done.update(db) }
                    actions.append("finished moving \(before) to \(current.relativePath)")
                }
            }
            actions += try sweepLeftovers()
            for action in actions { logger.notice("library.recovered", metadata: ["action": "\(action)"]) }
            return actions
        }
    }

    /// Publishes a filing a crash cut short, or forgets it when nothing whole is left to publish.
    private func finishFiling(_ current: DocumentWithPath) throws -> String {
        let record = current.record
        if let staged = record.stagedPath, let size = FileOps.size(staged) {
            // A move's cross-file-system copy is renamed in whole, so a staged file shorter than
            // its source was cut short by a build that copied in place. Its source is still where
            // it was (a move deletes it only once filed): dropping loses nothing, publishing
            // would file a broken PDF. Anything else may be a user's only copy, and is filed.
            guard size >= record.size else {
                _ = try database.pool.write { db in try record.delete(db) }
                try FileOps.removeFile(staged)
                return "dropped half-copied filing of \(current.relativePath)"
            }
            let filed = try publish(record, folderPath: current.folderPath, staged: .recovered, conflict: .rename)
            return "finished filing \(DocumentWithPath(record: filed, folderPath: current.folderPath).relativePath)"
        }
        // Nothing staged: the rename into the tree happened and only the ready mark is missing,
        // if the file there holds the recorded bytes. Otherwise it is a stranger's (a move that
        // gave its source back on a clash, then died) and stays one, for fsck to report.
        let target = absolute(current.relativePath)
        if FileOps.exists(target) {
            let found = try FileOps.digest(target)
            if found.size == record.size && found.sha256 == record.sha256 {
                _ = try publish(record, folderPath: current.folderPath, staged: .recovered, conflict: .rename)
                return "finished filing \(current.relativePath)"
            }
        }
        _ = try database.pool.write { db in try record.delete(db) }
        return "dropped unfinished filing of \(current.relativePath)"
    }

    /// Files in `.pdfgate/filing` that no row claims (a crash before the row was written) and
    /// whatever a recursive delete left in the trash.
    func sweepLeftovers() throws -> [String] {
        let claimed = Set(
            try database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT staged_path FROM documents WHERE staged_path IS NOT NULL")
            }
        )
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
