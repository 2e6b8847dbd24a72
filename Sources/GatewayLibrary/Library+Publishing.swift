import Foundation
import GatewayJobModel
import GatewayLibraryModel

/// Whose bytes sit in `.pdfgate/filing/` waiting to be published, which decides what a name
/// clash at publish time may do with them.
enum StagedFile {
    /// A copy the library made: on a clash with `conflict: .fail` it is simply deleted.
    case copy
    /// The caller's own file, renamed in by a move: on a clash it goes back to `from`.
    case moved(from: String)
    /// Found by recovery, origin unknown (it may be a user's only copy): never deleted.
    case recovered
}

extension Library {
    /// Brings a move's source into staging once its row exists: a rename, so the staged file is
    /// the caller's own. Across file systems it is a copy instead, written under a temporary
    /// name and renamed in whole, so a kill mid-copy leaves only debris to sweep, never a partial
    /// file at the staged path for recovery to publish.
    func takeIn(_ source: String, at staged: String) throws -> StagedFile {
        do {
            try FileOps.renameNoReplace(source, staged)
            try FileOps.fsync(staged)
            return .moved(from: source)
        } catch let error as FileOpsError where error.errno == EXDEV {
            let partial = staged + ".partial"
            try FileOps.removeFile(partial)
            try FileOps.copy(from: source, to: partial)
            try FileOps.renameNoReplace(partial, staged)
            try FileOps.fsync(paths.filing, directory: true)
            return .copy
        }
    }

    /// Step 2 and 3 of filing, also run by recovery: publish the staged file with a no-replace
    /// rename, fsync the directories, mark the row ready.
    ///
    /// A file can appear at the name after `freeDocumentName` looked (dropped in by hand). It is
    /// never overwritten: with `conflict: .fail` the filing is undone if the staged bytes can be
    /// given back (see `StagedFile`); otherwise they are published under the next free name.
    func publish(_ record: DocumentRecord, folderPath: String, staged kind: StagedFile, conflict: ConflictPolicy) async throws -> DocumentWithPath {
        var ready = record
        if let staged = record.stagedPath, FileOps.exists(staged) {
            var target = documentFile(ready, folderPath: folderPath)
            // The folder row exists, so its directory should too; one removed by hand is recreated
            // rather than failing the filing (fsck reports such a folder as missing).
            try FileOps.makeDirectories((target as NSString).deletingLastPathComponent)
            while true {
                do {
                    try FileOps.renameNoReplace(staged, target)
                    break
                } catch let error as FileOpsError where error.errno == EEXIST {
                    if conflict == .fail, try await giveBack(ready, staged: staged, kind) {
                        throw LibraryError(
                            .nameConflict,
                            "a file not in the library already sits at '\(target)', so nothing was filed (a file being moved is back where it was); run `pdfgate fsck --repair` to adopt that file, then try again"
                        )
                    }
                    // Ends: freeDocumentName gives up after 9,999 names.
                    ready = try await renumbered(ready, folderPath: folderPath)
                    target = documentFile(ready, folderPath: folderPath)
                }
            }
            try FileOps.fsyncParent(of: target)
            try FileOps.fsync(paths.filing, directory: true)
        }
        ready.state = .ready
        ready.stagedPath = nil
        let published = try await catalog.update(ready)
        textFiled()
        return published
    }

    /// Undoes a filing whose name turned out taken: a copy is deleted, a moved-in file goes back
    /// where it came from. False when the bytes must stay because they cannot be given back.
    private func giveBack(_ record: DocumentRecord, staged: String, _ kind: StagedFile) async throws -> Bool {
        switch kind {
        case .copy:
            // Row first: a crash in between leaves an unclaimed copy, which recovery sweeps.
            try await catalog.deleteDocument(id: record.id)
            try FileOps.removeFile(staged)
        case .moved(let source):
            // File first: a crash in between leaves a `filing` row with nothing staged, which
            // recovery drops (the stranger's file at the target does not hold the recorded bytes).
            do {
                try FileOps.renameNoReplace(staged, source)
            } catch is FileOpsError {
                return false  // its old place is taken too: file it under a free name instead
            }
            try FileOps.fsyncParent(of: source)
            try await catalog.deleteDocument(id: record.id)
        case .recovered:
            return false
        }
        return true
    }

    private func renumbered(_ record: DocumentRecord, folderPath: String) async throws -> DocumentRecord {
        var renamed = record
        renamed.name = try await freeDocumentName(
            owner: record.owner,
            folderID: record.folderID,
            folderPath: folderPath,
            desired: record.name,
            policy: .rename
        )
        try await catalog.update(renamed)
        return renamed
    }

    private func documentFile(_ record: DocumentRecord, folderPath: String) -> String {
        absolute(LibraryLayout.documentPath(owner: record.owner, folderPath: folderPath, name: record.name))
    }
}
