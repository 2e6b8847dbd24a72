import Foundation
import GatewayLibraryModel

/// One difference between the database and the tree, and whether `--repair` fixed it.
public struct FsckIssue: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A mutation a crash interrupted. Repair runs the reconciler, which finishes or undoes it.
        case unfinishedOperation = "unfinished_operation"
        /// A row whose PDF is gone. Repair forgets the row.
        case missingFile = "missing_file"
        /// A folder row whose directory is gone. Repair recreates the directory.
        case missingFolder = "missing_folder"
        /// The file's size or SHA-256 no longer matches its row. Repair re-inspects and updates.
        case contentDrift = "content_drift"
        /// A PDF in the tree with no row (dropped in by hand). Repair adopts it.
        case untrackedFile = "untracked_file"
        /// A directory in the tree with no row. Repair adopts it as a folder.
        case untrackedFolder = "untracked_folder"
        /// Something that is neither a PDF nor a folder, or a PDF Poppler rejects. Reported only.
        case foreignFile = "foreign_file"
        /// Debris of interrupted filings or deletes under `.pdfgate/`. Repair removes it.
        case leftover
        /// A document the search index has no entry for. Repair adds one, its text to be read.
        case indexMissing = "index_missing"
        /// An entry that disagrees with its document (another file, name or folder). Repair
        /// rewrites it, its text to be read again when the file changed.
        case indexStale = "index_stale"
        /// An object in the bucket that no row names, older than the grace period. Repair removes it.
        case orphanObject = "orphan_object"
        /// An entry for a document that is gone. Repair deletes it.
        case indexOrphan = "index_orphan"
        /// The full-text index does not match the text it was built from. Repair rebuilds it.
        case indexCorrupt = "index_corrupt"
    }

    public var kind: Kind
    /// Relative to the store root.
    public var path: String
    public var detail: String
    public var repaired: Bool
}

/// What `fsck` found; `issues.isEmpty` means the database and the tree agree.
public struct FsckReport: Sendable {
    public var documentsChecked: Int
    public var foldersChecked: Int
    public var issues: [FsckIssue]
}

extension Library {
    /// Compares every row with the tree and every file in the tree with the rows.
    ///
    /// A mutation in progress elsewhere (a server's filing) would look like damage if caught half
    /// done, but holding the mutation lock through a walk that hashes every file would stop a
    /// running server for minutes. So a report first walks without the lock: a clean walk is
    /// trustworthy (a mutation in flight can only add findings, never hide one) and is the
    /// answer. Only when something looks off, or to repair, is the walk done again holding the
    /// lock, and that one is reported. To see what a crash left, open the library with
    /// `reconciling: false`.
    ///
    /// - Parameters:
    ///   - repair: fix what can be fixed, reconciling first (see `FsckIssue.Kind`); otherwise
    ///     change nothing.
    ///   - verifyHashes: re-hash every file (slow on big libraries); sizes are always checked.
    ///   - inspector: reads PDFs found in the tree so they can be adopted with their metadata.
    public func fsck(repair: Bool, verifyHashes: Bool = true, inspector: any PDFInspector) async throws -> FsckReport {
        if !repair {
            let unlocked = try await compare(repair: false, verifyHashes: verifyHashes, inspector: inspector)
            if unlocked.issues.isEmpty { return unlocked }
        }
        return try await lock.withLock {
            try await compare(repair: repair, verifyHashes: verifyHashes, inspector: inspector)
        }
    }

    private func compare(repair: Bool, verifyHashes: Bool, inspector: any PDFInspector) async throws -> FsckReport {
        // What a crash left, seen before the reconciler (with repair) deals with it.
        var issues = try await pendingOperations() + leftovers()
        if repair {
            try await reconcile()
            for index in issues.indices { issues[index].repaired = true }
        }

        let (documents, folders) = try await read { catalog in (try await catalog.readyDocuments(), try await catalog.readyFolders()) }
        if let objects {
            issues += try await compare(documents, with: objects, repair: repair, verifyHashes: verifyHashes)
            issues += try await checkSearchIndex(repair: repair, thorough: verifyHashes)
            return FsckReport(documentsChecked: documents.count, foldersChecked: folders.count, issues: issues)
        }
        for folder in folders {
            let relative = LibraryLayout.folderPath(owner: folder.owner, folderPath: folder.path)
            guard !FileOps.isDirectory(absolute(relative)) else { continue }
            if repair { try await mutate { [self] in try await finishFolderCreate(folder) } }
            issues.append(FsckIssue(kind: .missingFolder, path: relative, detail: "folder row \(folder.id) has no directory", repaired: repair))
        }
        for document in documents {
            issues += try await check(document, repair: repair, verifyHashes: verifyHashes, inspector: inspector)
        }

        let knownFiles = Set(documents.map(\.relativePath))
        let knownFolders = Set(folders.map { LibraryLayout.folderPath(owner: $0.owner, folderPath: $0.path) })
        for owner in FileOps.list(paths.root).sorted() where !owner.hasPrefix(".") {
            guard (try? LibraryNames.validateOwner(owner)) != nil, FileOps.isDirectory(absolute(owner)) else {
                issues.append(FsckIssue(kind: .foreignFile, path: owner, detail: "not an owner's folder; move it out of the store", repaired: false))
                continue
            }
            issues += try await walk(
                owner: owner,
                folderPath: "",
                knownFiles: knownFiles,
                knownFolders: knownFolders,
                repair: repair,
                inspector: inspector
            )
        }

        issues += try await checkSearchIndex(repair: repair, thorough: verifyHashes)
        return FsckReport(documentsChecked: documents.count, foldersChecked: folders.count, issues: issues)
    }

    /// The search index against the rows, after the tree's repairs (an adopted file needs its
    /// entry too). `thorough` also checks the full-text index against its stored text, which
    /// re-reads all of it, like re-hashing every file does.
    private func checkSearchIndex(repair: Bool, thorough: Bool) async throws -> [FsckIssue] {
        let found = try await searchIndex.check(verifyFullText: thorough)
        guard !found.isEmpty else { return [] }
        if repair {
            try await mutate { try await self.searchIndex.repair(found) }
            textWaiting.continuation.yield()  // entries made pending have text to read
        }
        let rows = try await read { catalog in try await catalog.documents(ids: found.compactMap(\.documentID), owner: nil) }
        let paths = Dictionary(rows.map { ($0.record.id, $0.relativePath) }, uniquingKeysWith: { first, _ in first })
        return found.map { issue in
            let kind: FsckIssue.Kind =
                switch issue.kind {
                case .missing: .indexMissing
                case .stale: .indexStale
                case .orphan: .indexOrphan
                case .corrupt: .indexCorrupt
                }
            // An orphan's document is gone: the entry is named by its id.
            let path = issue.documentID.map { paths[$0] ?? "(document \($0))" } ?? "(search index)"
            return FsckIssue(kind: kind, path: path, detail: issue.detail, repaired: repair)
        }
    }

    /// What `sweepLeftovers` would remove.
    private func leftovers() async throws -> [FsckIssue] {
        var issues = FileOps.list(paths.trash).sorted().map {
            FsckIssue(kind: .leftover, path: ".pdfgate/trash/" + $0, detail: "remains of a recursive delete", repaired: false)
        }
        let claimed = try await read { catalog in try await catalog.stagedPaths() }
        for entry in FileOps.list(paths.filing).sorted() where !claimed.contains(paths.filing + "/" + entry) {
            issues.append(FsckIssue(kind: .leftover, path: ".pdfgate/filing/" + entry, detail: "remains of an interrupted filing", repaired: false))
        }
        return issues
    }

    private func pendingOperations() async throws -> [FsckIssue] {
        try await read { catalog in
            let documents = try await catalog.unfinishedDocuments()
            let folders = try await catalog.unfinishedFolders()
            return documents.map {
                FsckIssue(
                    kind: .unfinishedOperation,
                    path: $0.relativePath,
                    detail: "document \($0.record.id) is \($0.record.pathBefore == nil ? $0.record.state.rawValue : "moving")",
                    repaired: false
                )
            }
                + folders.map {
                    FsckIssue(
                        kind: .unfinishedOperation,
                        path: LibraryLayout.folderPath(owner: $0.owner, folderPath: $0.path),
                        detail: "folder \($0.id) is \($0.pathBefore == nil ? $0.state.rawValue : "moving")",
                        repaired: false
                    )
                }
        }
    }

    private func check(_ document: DocumentWithPath, repair: Bool, verifyHashes: Bool, inspector: any PDFInspector) async throws -> [FsckIssue] {
        let relative = document.relativePath
        let file = absolute(relative)
        guard let size = FileOps.size(file) else {
            if repair { try await mutate { [self] in try await catalog.deleteDocument(id: document.record.id) } }
            return [FsckIssue(kind: .missingFile, path: relative, detail: "document \(document.record.id) has no file", repaired: repair)]
        }
        var actual = (sha256: document.record.sha256, size: size)
        if verifyHashes || size != document.record.size { actual = try FileOps.digest(file) }
        guard actual.size != document.record.size || actual.sha256 != document.record.sha256 else { return [] }
        let detail =
            "recorded \(document.record.size) bytes sha256 \(document.record.sha256.prefix(12))…, found \(actual.size) bytes sha256 \(actual.sha256.prefix(12))…"
        guard repair else { return [FsckIssue(kind: .contentDrift, path: relative, detail: detail, repaired: false)] }
        do {
            let info = try await inspector.inspect(path: file)
            try await mutate { [self, actual] in
                var updated = document.record
                updated.size = actual.size
                updated.sha256 = actual.sha256
                updated.info = info
                updated.updatedAt = Date()
                try await catalog.update(updated)
            }
            return [FsckIssue(kind: .contentDrift, path: relative, detail: detail, repaired: true)]
        } catch let error as InspectionError {
            return [FsckIssue(kind: .contentDrift, path: relative, detail: detail + "; no longer a readable PDF (\(error.message))", repaired: false)]
        }
    }

    private func walk(
        owner: String,
        folderPath: String,
        knownFiles: Set<String>,
        knownFolders: Set<String>,
        repair: Bool,
        inspector: any PDFInspector
    ) async throws -> [FsckIssue] {
        var issues: [FsckIssue] = []
        let directory = LibraryLayout.folderPath(owner: owner, folderPath: folderPath)
        for entry in FileOps.list(absolute(directory)).sorted() where !entry.hasPrefix(".") {
            let relative = directory + "/" + entry
            let childPath = Self.join(folderPath, entry)
            if FileOps.isDirectory(absolute(relative)) {
                if !knownFolders.contains(relative) {
                    var repaired = false
                    if repair, let names = try? LibraryNames.folderPath(childPath), names.joined(separator: "/") == childPath {
                        _ = try await mutate { [self] in try await ensureFolder(owner: owner, names: names) }
                        repaired = true
                    }
                    issues.append(FsckIssue(kind: .untrackedFolder, path: relative, detail: "a directory with no folder row", repaired: repaired))
                }
                issues += try await walk(
                    owner: owner,
                    folderPath: childPath,
                    knownFiles: knownFiles,
                    knownFolders: knownFolders,
                    repair: repair,
                    inspector: inspector
                )
            } else if knownFiles.contains(relative) {
                continue
            } else if entry.lowercased().hasSuffix(".pdf") {
                issues.append(try await adopt(relative, owner: owner, folderPath: folderPath, repair: repair, inspector: inspector))
            } else {
                issues.append(FsckIssue(kind: .foreignFile, path: relative, detail: "not a PDF; the library holds only PDFs", repaired: false))
            }
        }
        return issues
    }

    /// Gives a PDF found in the tree a row, where it lies (renamed only if its name breaks the rules).
    private func adopt(_ relative: String, owner: String, folderPath: String, repair: Bool, inspector: any PDFInspector) async throws -> FsckIssue {
        let file = absolute(relative)
        let info: PDFInfo
        do {
            info = try await inspector.inspect(path: file)
        } catch let error as InspectionError {
            return FsckIssue(kind: .foreignFile, path: relative, detail: "named .pdf but unusable: \(error.message)", repaired: false)
        }
        guard repair else { return FsckIssue(kind: .untrackedFile, path: relative, detail: "a PDF with no document row", repaired: false) }
        let fileName = (relative as NSString).lastPathComponent
        let name = try LibraryNames.documentName(fileName)
        let folder: FolderReference = folderPath.isEmpty ? .root : .path(folderPath)
        if name + ".pdf" != fileName {
            let document = try await self.file(file, mode: .move, owner: owner, folder: folder, name: name, conflict: .rename, info: info)
            return FsckIssue(
                kind: .untrackedFile,
                path: relative,
                detail: "adopted as \(document.relativePath) (id \(document.id.lowercased))",
                repaired: true
            )
        }
        let id = try await mutate { [self] () -> String in
            let (sha256, size) = try FileOps.digest(file)
            return try await { () async throws -> String in
                let folderID = try await resolveFolder(owner: owner, folder)?.id ?? ""
                let record = DocumentRecord(
                    id: UUID(),
                    owner: owner,
                    folderID: folderID,
                    name: name,
                    size: size,
                    sha256: sha256,
                    info: info,
                    state: .ready,
                    now: Date()
                )
                try await catalog.insert(record)
                return record.id
            }()
        }
        return FsckIssue(kind: .untrackedFile, path: relative, detail: "adopted in place (id \(id))", repaired: true)
    }
}
