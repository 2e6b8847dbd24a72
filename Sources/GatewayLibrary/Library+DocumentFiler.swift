import Foundation
import GatewayLibraryModel

extension Library: DocumentFiler {
    /// Files a converter's output: taken (renamed) from staging, with the job's document id so a
    /// job that is retried or resumed after a crash still files exactly one document.
    public func fileConverted(
        _ path: String,
        id: UUID,
        owner: String,
        folder: String?,
        name: String,
        conflict: ConflictPolicy,
        info: PDFInfo
    ) async throws -> Document {
        try await file(path, mode: .move, owner: owner, folder: FolderReference.parse(folder), name: name, conflict: conflict, info: info, id: id)
    }

    /// A folder named by id must be one of the owner's now; a path is created at filing if missing.
    public func checkDestination(folder: String?, owner: String) async throws {
        switch FolderReference.parse(folder) {
        case .id(let id): _ = try await self.folder(.id(id), owner: owner)
        // Created when the document is filed: it must be a path a folder can have.
        case .path(let path): _ = try LibraryNames.folderPath(path)
        case .root: break
        }
    }

    public func discardConverted(id: UUID, owner: String) async throws -> Bool {
        do {
            try await deleteDocument(id: id, owner: owner)
            return true
        } catch  where error.kind == .documentNotFound {
            // Nothing was filed: the usual case for a failed or cancelled job.
            return false
        }
    }

    public func storedDocument(id: UUID, owner: String) async throws -> (document: Document, path: String) {
        let document = try await document(id: id, owner: owner)
        return (document, try await readableFile(of: document))
    }

    public func replaceContent(of id: UUID, owner: String, with path: String, info: PDFInfo) async throws -> Document {
        try await replaceDocumentContent(id: id, owner: owner, with: path, info: info)
    }
}
