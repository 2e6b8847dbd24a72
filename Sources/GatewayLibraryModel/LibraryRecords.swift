import Foundation

/// Lifecycle of a row: anything but `ready` is an operation a crash may have interrupted.
package enum RowState: String, Codable, Sendable {
    case ready
    /// Document: row reserved, file not yet published from `staged_path`.
    case filing
    /// Folder: row reserved, directory not yet created.
    case creating
    case deleting
    /// Folder: a recursive delete; the directory goes to `.pdfgate/trash/` first.
    case deletingTree = "deleting_tree"
}

/// A `documents` row. `folder_path` is joined in from `folders` when read. The rows are plain
/// values here; each database module adds how it reads and writes them.
package struct DocumentRecord: Codable, Sendable {

    package var id: String
    package var owner: String
    package var folderID: String
    package var name: String
    package var size: Int64
    package var sha256: String
    package var pageCount: Int
    package var title: String?
    package var author: String?
    package var subject: String?
    package var keywords: String?
    package var creator: String?
    package var producer: String?
    package var pdfCreatedAt: Date?
    package var pdfModifiedAt: Date?
    package var pdfVersion: String
    package var pageWidth: Double
    package var pageHeight: Double
    package var encrypted: Bool
    package var linearized: Bool
    package var pdfa: String?
    package var state: RowState
    /// Set while a rename/move is in flight: where the file was before.
    package var pathBefore: String?
    /// Set while filing: the file in `.pdfgate/filing/` to publish.
    package var stagedPath: String?
    package var createdAt: Date
    package var updatedAt: Date
    /// `PDFInfo.warning`: what could not be read of a PDF kept as it came.
    package var warning: String?

    /// Every column, in the order `DocumentWithPath.columns` lists them (a database's row decoder).
    package init(
        id: String,
        owner: String,
        folderID: String,
        name: String,
        size: Int64,
        sha256: String,
        pageCount: Int,
        title: String?,
        author: String?,
        subject: String?,
        keywords: String?,
        creator: String?,
        producer: String?,
        pdfCreatedAt: Date?,
        pdfModifiedAt: Date?,
        pdfVersion: String,
        pageWidth: Double,
        pageHeight: Double,
        encrypted: Bool,
        linearized: Bool,
        pdfa: String?,
        state: RowState,
        pathBefore: String?,
        stagedPath: String?,
        createdAt: Date,
        updatedAt: Date,
        warning: String? = nil
    ) {
        self.warning = warning
        self.id = id
        self.owner = owner
        self.folderID = folderID
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.pageCount = pageCount
        self.title = title
        self.author = author
        self.subject = subject
        self.keywords = keywords
        self.creator = creator
        self.producer = producer
        self.pdfCreatedAt = pdfCreatedAt
        self.pdfModifiedAt = pdfModifiedAt
        self.pdfVersion = pdfVersion
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        self.encrypted = encrypted
        self.linearized = linearized
        self.pdfa = pdfa
        self.state = state
        self.pathBefore = pathBefore
        self.stagedPath = stagedPath
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, owner
        case folderID = "folder_id"
        case name, size, sha256
        case pageCount = "page_count"
        case title, author, subject, keywords, creator, producer
        case pdfCreatedAt = "pdf_created_at"
        case pdfModifiedAt = "pdf_modified_at"
        case pdfVersion = "pdf_version"
        case pageWidth = "page_width"
        case pageHeight = "page_height"
        case encrypted, linearized, pdfa, state
        case pathBefore = "path_before"
        case stagedPath = "staged_path"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case warning
    }

}

extension DocumentRecord {
    package init(id: UUID, owner: String, folderID: String, name: String, size: Int64, sha256: String, info: PDFInfo, state: RowState, now: Date) {
        self.id = id.lowercased
        self.owner = owner
        self.folderID = folderID
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.pageCount = info.pageCount
        self.pdfVersion = info.pdfVersion
        self.pageWidth = info.pageWidth
        self.pageHeight = info.pageHeight
        self.encrypted = info.encrypted
        self.linearized = info.linearized
        self.state = state
        self.createdAt = now
        self.updatedAt = now
        self.info = info
    }

    package var info: PDFInfo {
        get {
            PDFInfo(
                pageCount: pageCount,
                title: title,
                author: author,
                subject: subject,
                keywords: keywords,
                creator: creator,
                producer: producer,
                createdAt: pdfCreatedAt,
                modifiedAt: pdfModifiedAt,
                pdfVersion: pdfVersion,
                pageWidth: pageWidth,
                pageHeight: pageHeight,
                encrypted: encrypted,
                linearized: linearized,
                pdfa: pdfa,
                warning: warning
            )
        }
        set {
            pageCount = newValue.pageCount
            title = newValue.title
            author = newValue.author
            subject = newValue.subject
            keywords = newValue.keywords
            creator = newValue.creator
            producer = newValue.producer
            pdfCreatedAt = newValue.createdAt
            pdfModifiedAt = newValue.modifiedAt
            pdfVersion = newValue.pdfVersion
            pageWidth = newValue.pageWidth
            pageHeight = newValue.pageHeight
            encrypted = newValue.encrypted
            linearized = newValue.linearized
            pdfa = newValue.pdfa
            warning = newValue.warning
        }
    }
}

/// A `folders` row. `path` is denormalized so lookups by path and subtree queries are one index hit.
package struct FolderRecord: Codable, Sendable {

    package var id: String
    package var owner: String
    package var parentID: String
    package var name: String
    package var path: String
    package var state: RowState
    /// Set while a rename/move is in flight: the directory's path before.
    package var pathBefore: String?
    package var createdAt: Date
    package var updatedAt: Date

    package init(
        id: String,
        owner: String,
        parentID: String,
        name: String,
        path: String,
        state: RowState,
        pathBefore: String?,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.owner = owner
        self.parentID = parentID
        self.name = name
        self.path = path
        self.state = state
        self.pathBefore = pathBefore
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    package enum CodingKeys: String, CodingKey {
        case id, owner
        case parentID = "parent_id"
        case name, path, state
        case pathBefore = "path_before"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    package var folder: Folder {
        Folder(
            id: UUID(catalogText: id)!,
            owner: owner,
            parentID: parentID.isEmpty ? nil : UUID(catalogText: parentID),
            name: name,
            path: path,
            createdAt: createdAt,
            updatedAt: updatedAt
        )
    }
}

/// A document row with its folder's path, as every read returns it.
package struct DocumentWithPath: Sendable {
    package var record: DocumentRecord
    package var folderPath: String

    package init(record: DocumentRecord, folderPath: String) {
        self.record = record
        self.folderPath = folderPath
    }

    /// The columns a database reads a row from, in the memberwise order of `DocumentRecord`.
    package static let columns: [DocumentRecord.CodingKeys] = [
        .id, .owner, .folderID, .name, .size, .sha256, .pageCount, .title, .author, .subject, .keywords, .creator,
        .producer, .pdfCreatedAt, .pdfModifiedAt, .pdfVersion, .pageWidth, .pageHeight, .encrypted, .linearized, .pdfa,
        .state, .pathBefore, .stagedPath, .createdAt, .updatedAt, .warning,
    ]

    package var document: Document {
        Document(
            id: UUID(catalogText: record.id)!,
            owner: record.owner,
            folderID: record.folderID.isEmpty ? nil : UUID(catalogText: record.folderID),
            folderPath: folderPath,
            name: record.name,
            size: record.size,
            sha256: record.sha256,
            info: record.info,
            createdAt: record.createdAt,
            updatedAt: record.updatedAt
        )
    }

    package var relativePath: String { LibraryLayout.documentPath(owner: record.owner, folderPath: folderPath, name: record.name) }
}
