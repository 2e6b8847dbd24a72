import Foundation
import GRDB
import GatewayLibraryModel

// How SQLite reads and writes the library's rows (GatewayCore/Library/LibraryRecords.swift).

extension RowState: DatabaseValueConvertible {}

extension DocumentRecord: FetchableRecord, PersistableRecord {
    package static let databaseTableName = "documents"

    package enum Columns {
        package static let id = Column(CodingKeys.id)
        package static let owner = Column(CodingKeys.owner)
        package static let folderID = Column(CodingKeys.folderID)
        package static let name = Column(CodingKeys.name)
        package static let state = Column(CodingKeys.state)
        package static let pathBefore = Column(CodingKeys.pathBefore)
    }
}

extension FolderRecord: FetchableRecord, PersistableRecord {
    package static let databaseTableName = "folders"

    package enum Columns {
        package static let id = Column(CodingKeys.id)
        package static let owner = Column(CodingKeys.owner)
        package static let parentID = Column(CodingKeys.parentID)
        package static let name = Column(CodingKeys.name)
        package static let path = Column(CodingKeys.path)
        package static let state = Column(CodingKeys.state)
        package static let pathBefore = Column(CodingKeys.pathBefore)
    }
}

extension DocumentWithPath: FetchableRecord {
    /// Reads the columns of `selection` by position. Every document read goes through here, and
    /// a page of 50 decoded through `Codable` spent more time in keyed containers than SQLite
    /// spent finding the rows. Columns are read straight from the statement (GRDB's
    /// `StatementColumnConvertible` path) and dates parsed by `StoredDate`; a test holds this
    /// decoder to the `Codable` one.
    package init(row: Row) throws {
        self.init(record: try Self.record(row: row), folderPath: try row.decode(String.self, atIndex: Self.columns.count))
    }

    /// The document's own columns (`columns`, from the first), without its folder's path: the
    /// change feed looks paths up once a folder rather than joining them on every row.
    package static func record(row: Row) throws -> DocumentRecord {
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
        return DocumentRecord(
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
            updatedAt: try required(nextDate()),
            warning: try nextIfPresent()
        )
    }

    /// The columns to select for `init(row:)`.
    static let selection =
        columns.map { "documents." + $0.rawValue }.joined(separator: ", ")
        + ", COALESCE(folders.path, '') AS folder_path FROM documents LEFT JOIN folders ON folders.id = documents.folder_id"
}
