import Foundation
import GatewayCore

/// A document as `--json` prints it (and as the HTTP API will answer it).
struct DocumentJSON: Encodable {
    var id: String
    var name: String
    var folder: String
    var folderID: String?
    var path: String
    var pageCount: Int
    var size: Int64
    var sha256: String
    var createdAt: Date
    var updatedAt: Date
    /// The PDF's own facts; nested so its `created_at` cannot be confused with the document's.
    var metadata: PDFInfo

    init(_ document: Document) {
        id = document.id.uuidString.lowercased()
        name = document.name
        folder = document.folderPath
        folderID = document.folderID?.uuidString.lowercased()
        path = document.relativePath
        pageCount = document.info.pageCount
        size = document.size
        sha256 = document.sha256
        createdAt = document.createdAt
        updatedAt = document.updatedAt
        metadata = document.info
    }

    enum CodingKeys: String, CodingKey {
        case id, name, folder
        case folderID = "folder_id"
        case path
        case pageCount = "page_count"
        case size, sha256
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case metadata
    }
}

struct FolderJSON: Encodable {
    var id: String
    var name: String
    var path: String
    var parentID: String?
    var createdAt: Date
    var updatedAt: Date

    init(_ folder: Folder) {
        id = folder.id.uuidString.lowercased()
        name = folder.name
        path = folder.path
        parentID = folder.parentID?.uuidString.lowercased()
        createdAt = folder.createdAt
        updatedAt = folder.updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, path
        case parentID = "parent_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
