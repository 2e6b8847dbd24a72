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
                    // The no-replace rename moves the file, so it is in exactly one of the two
                    // places; `publish` also copes with a stranger's file sitting at the target.
                    let staged = current.record.stagedPath.map(FileOps.exists) ?? false
                    if staged || FileOps.exists(absolute(current.relativePath)) {
                        do {
                            _ = try publish(current.record, folderPath: current.folderPath)
                            actions.append("finished filing \(current.relativePath)")
                        } catch let error as LibraryError where error.kind == .nameConflict {
                            actions.append("dropped filing of \(current.relativePath): \(error.message)")
                        }
                    } else {
                        _ = try database.pool.write { db in try current.record.delete(db) }
                        actions.append("dropped unfinished filing of \(current.relativePath)")
                    }
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
