import Foundation

/// A PDF filed in the library. Its `id` never changes: rename and move keep it.
public struct Document: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var owner: String
    /// nil for the owner's root folder.
    public var folderID: UUID?
    /// Slash-separated path of the folder, `""` for the root.
    public var folderPath: String
    public var name: String
    public var size: Int64
    public var sha256: String
    public var info: PDFInfo
    public var createdAt: Date
    public var updatedAt: Date

    /// Path of the file relative to the store: `<owner>/<folder>/<name>.pdf`.
    public var relativePath: String {
        LibraryLayout.documentPath(owner: owner, folderPath: folderPath, name: name)
    }

    public init(
        id: UUID,
        owner: String,
        folderID: UUID?,
        folderPath: String,
        name: String,
        size: Int64,
        sha256: String,
        info: PDFInfo,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.owner = owner
        self.folderID = folderID
        self.folderPath = folderPath
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.info = info
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A real directory in the library; its `id` is stable through rename and move.
public struct Folder: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var owner: String
    public var parentID: UUID?
    public var name: String
    /// Slash-separated path from the owner's root, e.g. `Invoices/2026`.
    public var path: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, owner: String, parentID: UUID?, name: String, path: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.owner = owner
        self.parentID = parentID
        self.name = name
        self.path = path
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What to do when a name is already taken in the target folder.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Refuse with `name_conflict`.
    case fail
    /// Pick `Name 01`, `Name 02`, … instead.
    case rename
}

/// How the file being filed reaches the library.
public enum FilingMode: Sendable {
    /// Keep the source; the library gets a copy.
    case copy
    /// Take the source (a rename on the same filesystem, else copy then remove).
    case move
}

/// Where a folder is, as the user names it.
public enum FolderReference: Sendable, Equatable {
    case root
    case id(UUID)
    case path(String)

    /// `""`/`/` → root, a UUID → id, anything else → path.
    public static func parse(_ text: String?) -> FolderReference {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty, text != "/" else { return .root }
        if let id = UUID(uuidString: text) { return .id(id) }
        return .path(text)
    }
}

/// The fields documents can be listed by.
public enum DocumentSortField: String, Sendable, CaseIterable {
    case name
    case createdAt = "created_at"
    case updatedAt = "updated_at"
    case size
    case pageCount = "page_count"
}

/// A sort field and direction; spelled `created_at` or `-created_at` (descending).
public struct DocumentSort: Sendable, Equatable, CustomStringConvertible {
    public var field: DocumentSortField
    public var descending: Bool

    public init(_ field: DocumentSortField, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    public init(parsing text: String) throws(LibraryError) {
        let descending = text.hasPrefix("-")
        let name = descending ? String(text.dropFirst()) : text
        guard let field = DocumentSortField(rawValue: name) else {
            let known = DocumentSortField.allCases.map(\.rawValue).joined(separator: ", ")
            throw LibraryError(.invalidSort, "unknown sort '\(text)'; use one of \(known), with a leading '-' for descending")
        }
        self.init(field, descending: descending)
    }

    public var description: String { (descending ? "-" : "") + field.rawValue }
}

/// A page request for `listDocuments`.
public struct DocumentQuery: Sendable {
    public var owner: String
    public var folder: FolderReference
    public var recursive: Bool
    /// Case-insensitive substring of the name or the title.
    public var search: String?
    /// A full-text search of the documents' text, names and titles (`SearchQuery`'s syntax):
    /// the page then holds the best hits first, and `sort` does not apply.
    public var text: String?
    public var sort: DocumentSort
    public var limit: Int
    /// Opaque, from the previous page's `nextCursor`.
    public var cursor: String?

    public init(
        owner: String,
        folder: FolderReference = .root,
        recursive: Bool = false,
        search: String? = nil,
        text: String? = nil,
        sort: DocumentSort = DocumentSort(.name),
        limit: Int = 50,
        cursor: String? = nil
    ) {
        self.owner = owner
        self.folder = folder
        self.recursive = recursive
        self.search = search
        self.text = text
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
    }
}

/// One page of documents; `nextCursor` is nil on the last page.
public struct DocumentPage: Sendable {
    public var documents: [Document]
    public var nextCursor: String?
    /// For a full-text search (`DocumentQuery.text`): a hit per document, and how complete the
    /// answer is.
    public var search: DocumentSearch?

    public init(documents: [Document], nextCursor: String?, search: DocumentSearch? = nil) {
        self.documents = documents
        self.nextCursor = nextCursor
        self.search = search
    }
}

/// Where things live relative to the store root (DESIGN §6).
public enum LibraryLayout {
    public static func folderPath(owner: String, folderPath: String) -> String {
        folderPath.isEmpty ? owner : owner + "/" + folderPath
    }

    public static func documentPath(owner: String, folderPath: String, name: String) -> String {
        self.folderPath(owner: owner, folderPath: folderPath) + "/" + name + ".pdf"
    }
}

extension UUID {
    /// Ids are written as lowercase text everywhere: SQL, JSON, paths and logs.
    /// Written by hand: Foundation formats through `sprintf` and then lowercases a copy, and a
    /// page of documents formats a hundred of these.
    public var lowercased: String {
        withLowercasedUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// The 36 bytes of `lowercased`, formatted on the stack, for a writer that copies them
    /// straight into its output. Inlinable: a page of the change feed writes a thousand.
    @inlinable
    public func withLowercasedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: uuid) { raw in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    let byte = raw[index]
                    out[at] = Self.hexDigit(byte >> 4)
                    out[at + 1] = Self.hexDigit(byte & 0x0F)
                    at += 2
                }
                return try body(UnsafeBufferPointer(out))
            }
        }
    }

    @inlinable
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

extension UUID {
    /// Reads an id as the catalog stores it (`lowercased`, 36 characters); anything else goes
    /// through Foundation. By hand for the same reason: Foundation parses with `sscanf`, and a
    /// listing reads two ids per document.
    public init?(catalogText text: String) {
        guard text.utf8.count == 36 else {
            self.init(uuidString: text)
            return
        }
        var text = text
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = text.withUTF8 { utf8 in
            withUnsafeMutableBytes(of: &bytes) { out in
                var index = 0
                for at in 0..<16 {
                    if at == 4 || at == 6 || at == 8 || at == 10 {
                        guard utf8[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                    }
                    guard let high = Self.hexValue(utf8[index]), let low = Self.hexValue(utf8[index + 1]) else { return false }
                    out[at] = high << 4 | low
                    index += 2
                }
                return true
            }
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
