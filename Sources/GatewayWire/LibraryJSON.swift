import Foundation
import GatewayLibraryModel

/// A document as the CLI's `--json` prints it and the HTTP API answers it: one shape for both.
public struct DocumentJSON: Encodable, Sendable {
    public var id: String
    public var name: String
    public var folder: String
    @NullWhenAbsent public var folderID: String?
    public var path: String
    public var pageCount: Int
    public var size: Int64
    public var sha256: String
    public var createdAt: Date
    public var updatedAt: Date
    /// The PDF's own facts; nested so its `created_at` cannot be confused with the document's.
    public var metadata: PDFInfo

    public init(_ document: Document) {
        id = document.id.lowercased
        name = document.name
        folder = document.folderPath
        folderID = document.folderID?.lowercased
        path = document.relativePath
        pageCount = document.info.pageCount
        size = document.size
        sha256 = document.sha256
        createdAt = document.createdAt
        updatedAt = document.updatedAt
        metadata = document.info
    }

    /// A signed link to the PDF, when the API adds one.
    public var downloadURL: String?
    /// The document's version (its ETag without quotes), where the answer carries one: a read
    /// or write of this one document, the change feed.
    public var version: String?

    enum CodingKeys: String, CodingKey {
        case id, name, folder
        case folderID = "folder_id"
        case path
        case pageCount = "page_count"
        case size, sha256
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case metadata
        case downloadURL = "download_url"
        case version
    }
}

/// A folder as the CLI and the HTTP API show it.
public struct FolderJSON: Encodable, Sendable {
    public var id: String
    public var name: String
    public var path: String
    @NullWhenAbsent public var parentID: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The folder's version, as a document's.
    public var version: String?

    public init(_ folder: Folder) {
        id = folder.id.lowercased
        name = folder.name
        path = folder.path
        parentID = folder.parentID?.lowercased
        createdAt = folder.createdAt
        updatedAt = folder.updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, path
        case parentID = "parent_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case version
    }
}
