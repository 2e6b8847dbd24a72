import Foundation
import GatewayLibraryModel

/// Writes under ids the client chose (`PUT /v1/documents/{id}`, `PUT /v1/folders/{id}`): the
/// phone app backs up each document and folder under its own UUID. Each call creates or
/// replaces, is idempotent (the same write twice changes nothing the second time), and checks
/// its precondition under the mutation lock, so two devices writing over the same version
/// cannot both succeed.
extension Library {
    /// Files the PDF at `source` as document `id`, or makes document `id` hold it, with `name`
    /// in `folder` (nil keeps an existing document's, and means the root for a new one).
    public func putDocument(
        id: UUID,
        owner: String,
        source: String,
        info: PDFInfo,
        name: String?,
        folder: FolderReference?,
        precondition: WritePrecondition
    ) async throws(LibraryError) -> PutResult<Document> {
        try LibraryNames.validateOwner(owner)
        let name = try name.map { name throws(LibraryError) in try LibraryNames.documentName(name) }
        // Into the bucket before the lock, which every node's writes take in turn: the object is
        // named by id and content, so whatever the write below decides, it is the right one (or
        // one the janitor removes).
        let stored: (sha256: String, size: Int64)? = if let objects { try await upload(source, id: id, to: objects) } else { nil }
        return try await mutate { [self] in
            if let row = try await catalog.document(id: id.lowercased, owner: nil, readyOnly: false) {
                guard row.record.owner == owner else { throw Self.idTaken(id, "document") }
                // Left mid-operation by a process that died (this lock excludes every live one).
                if row.record.state != .ready || row.record.pathBefore != nil { _ = try await finishInterrupted(row) }
            }
            let current = try await catalog.document(id: id.lowercased, owner: owner, readyOnly: true)?.document
            let version = try await catalog.version(ofDocument: id.lowercased).map(ItemVersion.init)
            try Self.check(precondition, current: version, exists: current != nil, what: "document \(id.lowercased)")

            guard var document = current else {
                // Without a name, its id: unique, and the client can rename it later.
                let filed = try await file(
                    source,
                    mode: .move,
                    owner: owner,
                    folder: folder ?? .root,
                    name: name ?? id.lowercased,
                    info: info,
                    id: id,
                    stored: stored
                )
                return PutResult(item: filed, version: try await currentVersion(ofDocument: id), created: true)
            }
            if try (stored ?? FileOps.digest(source)).sha256 != document.sha256 {
                document = try await replaceDocumentContent(id: id, owner: owner, with: source, info: info, stored: stored)
            }
            let renamed = name != nil && name != document.name
            let moved = if let folder { try await !isIn(document, folder) } else { false }
            if renamed || moved {
                document = try await updateDocument(id: id, owner: owner, name: name, folder: folder)
            }
            return PutResult(item: document, version: try await currentVersion(ofDocument: id), created: false)
        }
    }

    /// Creates folder `id` as `name` under `parent` (nil: the root), or renames and moves folder
    /// `id` there; its documents and subfolders go with it and keep their ids.
    public func putFolder(
        id: UUID,
        owner: String,
        name: String,
        parent: FolderReference?,
        precondition: WritePrecondition
    ) async throws(LibraryError) -> PutResult<Folder> {
        try LibraryNames.validateOwner(owner)
        let name = try LibraryNames.folderName(name)
        return try await mutate { [self] in
            if let holder = try await catalog.owner(ofFolder: id.lowercased), holder != owner { throw Self.idTaken(id, "folder") }
            let current = try await catalog.folder(id: id.lowercased, owner: owner).flatMap { $0.state == .ready ? $0 : nil }
            let version = try await catalog.version(ofFolder: id.lowercased).map(ItemVersion.init)
            try Self.check(precondition, current: version, exists: current != nil, what: "folder \(id.lowercased)")

            guard let current else {
                let parentRecord = try await resolveFolder(owner: owner, parent ?? .root)
                if try await catalog.childFolder(owner: owner, parentID: parentRecord?.id ?? "", name: name) != nil {
                    throw LibraryError(
                        .nameConflict,
                        "a folder named '\(Self.join(parentRecord?.path ?? "", name))' already exists with another id; rename one of them"
                    )
                }
                let names = (parentRecord?.path ?? "").split(separator: "/").map(String.init) + [name]
                let created = try await ensureFolder(owner: owner, names: names, leafID: id)
                return PutResult(item: created.folder, version: try await currentVersion(ofFolder: id), created: true)
            }
            let parentID = try await resolveFolder(owner: owner, parent ?? .root)?.id ?? ""
            var folder = current.folder
            if name != current.name || parentID != current.parentID {
                folder = try await updateFolder(.id(id), owner: owner, name: name, parent: parent ?? .root)
            }
            return PutResult(item: folder, version: try await currentVersion(ofFolder: id), created: false)
        }
    }

    /// The version of the owner's document `id`, for an ETag; `document_not_found` otherwise.
    public func version(ofDocument id: UUID, owner: String) async throws(LibraryError) -> ItemVersion {
        try await read { _ in
            _ = try await fetchDocument(id: id, owner: owner)
            return try await currentVersion(ofDocument: id)
        }
    }

    /// The version of the owner's folder `id`, for an ETag; `folder_not_found` otherwise.
    public func version(ofFolder id: UUID, owner: String) async throws(LibraryError) -> ItemVersion {
        try await read { _ in
            guard try await resolveFolder(owner: owner, .id(id)) != nil else { throw Self.folderNotFound(.id(id)) }
            return try await currentVersion(ofFolder: id)
        }
    }

    private static func check(_ precondition: WritePrecondition, current: ItemVersion?, exists: Bool, what: String) throws {
        switch precondition {
        case .none:
            return
        case .absent where exists:
            throw LibraryError(
                .preconditionFailed,
                "\(what) already exists (If-None-Match: *); read it, then write with If-Match and its version to replace it"
            )
        case .absent:
            return
        case .exists where !exists:
            throw LibraryError(.preconditionFailed, "\(what) does not exist (If-Match: *); create it without If-Match")
        case .exists:
            return
        case .version(let expected):
            guard exists, let current else {
                throw LibraryError(
                    .preconditionFailed,
                    "\(what) does not exist, so it is not version \(expected) (If-Match); create it without If-Match"
                )
            }
            guard current == expected else {
                throw LibraryError(
                    .preconditionFailed,
                    "\(what) is at version \(current), not \(expected) (If-Match): another write came first; read it again and merge"
                )
            }
        }
    }

    private func isIn(_ document: Document, _ folder: FolderReference) async throws -> Bool {
        (try await resolveFolder(owner: document.owner, folder)?.id).flatMap(UUID.init(uuidString:)) == document.folderID
    }

    private func currentVersion(ofDocument id: UUID) async throws -> ItemVersion {
        guard let sequence = try await catalog.version(ofDocument: id.lowercased) else { throw Self.documentNotFound(id) }
        return ItemVersion(sequence: sequence)
    }

    private func currentVersion(ofFolder id: UUID) async throws -> ItemVersion {
        guard let sequence = try await catalog.version(ofFolder: id.lowercased) else { throw Self.folderNotFound(.id(id)) }
        return ItemVersion(sequence: sequence)
    }

    private static func idTaken(_ id: UUID, _ what: String) -> LibraryError {
        LibraryError(.idTaken, "\(what) id \(id.lowercased) is not available; give the \(what) another UUID")
    }
}
