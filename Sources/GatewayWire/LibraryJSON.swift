import Foundation
import GatewayLibraryModel

/// A document as the CLI's `--json` prints it and the HTTP API answers it: one shape for both.
public struct DocumentJSON: Encodable, Sendable {
    /// The document as the library has it. Its wire spellings (lowercase ids, the path) are made
    /// as it is written, so that wrapping a page of 1,000 documents copies no strings.
    public var document: Document
    /// A signed link to the PDF, when the API adds one.
    public var downloadURL: String?
    /// The document's version (its ETag without quotes), where the answer carries one: a read
    /// or write of this one document, the change feed.
    public var version: String?

    public init(_ document: Document) {
        self.document = document
    }

    public init(_ document: Document, version: String) {
        self.document = document
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case id, name, folder
        case folderID = "folder_id"
        case path
        case pageCount = "page_count"
        case size, sha256
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        /// The PDF's own facts; nested so its `created_at` cannot be confused with the document's.
        case metadata
        case downloadURL = "download_url"
        case version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document.id.lowercased, forKey: .id)
        try container.encode(document.name, forKey: .name)
        try container.encode(document.folderPath, forKey: .folder)
        try container.encode(document.folderID?.lowercased, forKey: .folderID)  // null at the root: openapi.yaml requires the key
        try container.encode(document.relativePath, forKey: .path)
        try container.encode(document.info.knownPageCount, forKey: .pageCount)
        try container.encode(document.size, forKey: .size)
        try container.encode(document.sha256, forKey: .sha256)
        try container.encode(document.createdAt, forKey: .createdAt)
        try container.encode(document.updatedAt, forKey: .updatedAt)
        try container.encode(document.info, forKey: .metadata)
        try container.encodeIfPresent(downloadURL, forKey: .downloadURL)
        try container.encodeIfPresent(version, forKey: .version)
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

    public init(_ folder: Folder, version: String) {
        self.init(folder)
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case id, name, path
        case parentID = "parent_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case version
    }
}
