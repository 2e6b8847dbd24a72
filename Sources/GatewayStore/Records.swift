import Foundation
import GRDB
import GatewayCore

/// Lifecycle of a row: anything but `ready` is an operation a crash may have interrupted.
package enum RowState: String, Codable, DatabaseValueConvertible {
    case ready
    /// Document: row reserved, file not yet published from `staged_path`.
    case filing
    /// Folder: row reserved, directory not yet created.
    case creating
    case deleting
    /// Folder: a recursive delete; the directory goes to `.pdfgate/trash/` first.
    case deletingTree = "deleting_tree"
}

/// A `documents` row. `folder_path` is joined in from `folders` when read.
package struct DocumentRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "documents"

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
    }

    package enum Columns {
        package static let id = Column(CodingKeys.id)
        package static let owner = Column(CodingKeys.owner)
        package static let folderID = Column(CodingKeys.folderID)
        package static let name = Column(CodingKeys.name)
        package static let state = Column(CodingKeys.state)
        package static let pathBefore = Column(CodingKeys.pathBefore)
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
                pdfa: pdfa
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
        }
    }
}

/// A `folders` row. `path` is denormalized so lookups by path and subtree queries are one index hit.
package struct FolderRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "folders"

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

    package enum Columns {
        package static let id = Column(CodingKeys.id)
        package static let owner = Column(CodingKeys.owner)
        package static let parentID = Column(CodingKeys.parentID)
        package static let name = Column(CodingKeys.name)
        package static let path = Column(CodingKeys.path)
        package static let state = Column(CodingKeys.state)
        package static let pathBefore = Column(CodingKeys.pathBefore)
    }

    package var folder: Folder {
        Folder(
            id: UUID(uuidString: id)!,
            owner: owner,
            parentID: parentID.isEmpty ? nil : UUID(uuidString: parentID),
            name: name,
            path: path,
            createdAt: createdAt,
            updatedAt: updatedAt
        )
    }
}

/// A document row with its folder's path, as every read returns it.
package struct DocumentWithPath: FetchableRecord {
    package var record: DocumentRecord
    package var folderPath: String

    package init(record: DocumentRecord, folderPath: String) {
        self.record = record
        self.folderPath = folderPath
    }

    /// Reads the columns of `selection` by position. Every document read goes through here, and
    /// a page of 50 decoded through `Codable` spent more time in keyed containers than SQLite
    /// spent finding the rows. Columns are read straight from the statement (GRDB's
    /// `StatementColumnConvertible` path) and dates parsed by `StoredDate`; a test holds this
    /// decoder to the `Codable` one.
    package init(row: Row) throws {
        var column = 0
        func next<Value: DatabaseValueConvertible & StatementColumnConvertible>() throws -> Value {
            defer { column += 1 }
            return try row.decode(Value.self, atIndex: column)
        }
        func nextIfPresent<Value: DatabaseValueConvertible & StatementColumnConvertible>() throws -> Value? {
            defer { column += 1 }
            return try row.decode(Value?.self, atIndex: column)
        }
        func nextDate() throws -> Date? {
            defer { column += 1 }
            if let text = try row.decode(String?.self, atIndex: column), let date = StoredDate.parse(text) { return date }
            return try row.decode(Date?.self, atIndex: column)  // any other spelling GRDB accepts
        }
        func required(_ date: Date?) throws -> Date {
            guard let date else { throw LibraryError(.storage, "document row has no date in column \(column - 1)") }
            return date
        }
        func nextState(_ id: String) throws -> RowState {
            let text: String = try next()
            guard let state = RowState(rawValue: text) else { throw LibraryError(.storage, "document \(id) has unknown state '\(text)'") }
            return state
        }
        let id: String = try next()
        record = DocumentRecord(
            id: id,
            owner: try next(),
            folderID: try next(),
            name: try next(),
            size: try next(),
            sha256: try next(),
            pageCount: try next(),
            title: try nextIfPresent(),
            author: try nextIfPresent(),
            subject: try nextIfPresent(),
            keywords: try nextIfPresent(),
            creator: try nextIfPresent(),
            producer: try nextIfPresent(),
            pdfCreatedAt: try nextDate(),
            pdfModifiedAt: try nextDate(),
            pdfVersion: try next(),
            pageWidth: try next(),
            pageHeight: try next(),
            encrypted: try next(),
            linearized: try next(),
            pdfa: try nextIfPresent(),
            state: try nextState(id),
            pathBefore: try nextIfPresent(),
            stagedPath: try nextIfPresent(),
            createdAt: try required(nextDate()),
            updatedAt: try required(nextDate())
        )
        folderPath = try next()
    }

    /// The columns `init(row:)` reads, in its order (the memberwise order of `DocumentRecord`).
    package static let columns: [DocumentRecord.CodingKeys] = [
        .id, .owner, .folderID, .name, .size, .sha256, .pageCount, .title, .author, .subject, .keywords, .creator,
        .producer, .pdfCreatedAt, .pdfModifiedAt, .pdfVersion, .pageWidth, .pageHeight, .encrypted, .linearized, .pdfa,
        .state, .pathBefore, .stagedPath, .createdAt, .updatedAt,
    ]

    /// The columns to select for `init(row:)`.
    static let selection =
        columns.map { "documents." + $0.rawValue }.joined(separator: ", ")
        + ", COALESCE(folders.path, '') AS folder_path FROM documents LEFT JOIN folders ON folders.id = documents.folder_id"

    package var document: Document {
        Document(
            id: UUID(uuidString: record.id)!,
            owner: record.owner,
            folderID: record.folderID.isEmpty ? nil : UUID(uuidString: record.folderID),
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
