import Foundation
import GRDB
import GatewayCore

extension Library {
    /// Largest page a caller may ask for.
    public static let maxPageSize = 1000

    /// One page of documents, keyset-paginated on (sort field, id) so every page costs the same
    /// at 100 documents or 100,000.
    public func listDocuments(_ query: DocumentQuery) throws(LibraryError) -> DocumentPage {
        guard (1...Self.maxPageSize).contains(query.limit) else {
            throw LibraryError(.invalidArgument, "limit \(query.limit) is out of range; use 1 to \(Self.maxPageSize)")
        }
        let after = try query.cursor.map { cursor throws(LibraryError) in try ListCursor(decoding: cursor, sort: query.sort) }
        return try read { db in
            let column = "documents." + query.sort.field.rawValue
            let key = query.sort.field == .name ? column + " COLLATE NOCASE" : column
            let direction = query.sort.descending ? "DESC" : "ASC"
            let comparison = query.sort.descending ? "<" : ">"

            var conditions = ["documents.owner = ?", "documents.state = 'ready'"]
            var arguments: StatementArguments = [query.owner]
            let folder = try resolveFolder(db, owner: query.owner, query.folder)
            if !query.recursive {
                conditions.append("documents.folder_id = ?")
                _ = arguments.append(contentsOf: [folder?.id ?? ""])
            } else if let folder {
                let under = Self.pathsUnder(folder.path)
                conditions.append("documents.folder_id IN (SELECT id FROM folders WHERE owner = ? AND (path = ? OR \(under.sql)))")
                _ = arguments.append(contentsOf: [query.owner, folder.path] + under.arguments)
            }
            if let search = query.search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
                let pattern =
                    "%"
                    + search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_") + "%"
                conditions.append("(documents.name LIKE ? ESCAPE '\\' OR documents.title LIKE ? ESCAPE '\\')")
                _ = arguments.append(contentsOf: [pattern, pattern])
            }
            if let after {
                conditions.append("(\(key) \(comparison) ? OR (\(key) = ? AND documents.id \(comparison) ?))")
                _ = arguments.append(contentsOf: [after.value, after.value, after.id])
            }
            let sql = """
                SELECT \(DocumentWithPath.selection)
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY \(key) \(direction), documents.id \(direction)
                LIMIT \(query.limit + 1)
                """
            // Cached: a listing's SQL has a handful of shapes, and compiling it cost as much as running it.
            var rows = try DocumentWithPath.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            var next: String?
            if rows.count > query.limit {
                rows.removeLast()
                let last = rows[rows.count - 1].record
                next = ListCursor(sort: query.sort, value: Self.sortValue(last, query.sort.field), id: last.id).encoded
            }
            return DocumentPage(documents: rows.map(\.document), nextCursor: next)
        }
    }

    /// The sort column's value encoded exactly as it is stored, so the cursor compares like the index.
    static func sortValue(_ record: DocumentRecord, _ field: DocumentSortField) -> DatabaseValue {
        switch field {
        case .name: return record.name.databaseValue
        case .createdAt: return record.createdAt.databaseValue
        case .updatedAt: return record.updatedAt.databaseValue
        case .size: return record.size.databaseValue
        case .pageCount: return record.pageCount.databaseValue
        }
    }
}

/// The opaque position after which the next page starts: the sort it belongs to, the last
/// row's sort value and id, as base64url JSON.
struct ListCursor {
    var sort: DocumentSort
    var value: DatabaseValue
    var id: String

    init(sort: DocumentSort, value: DatabaseValue, id: String) {
        self.sort = sort
        self.value = value
        self.id = id
    }

    private struct Wire: Codable {
        var s: String
        var i: String
        var t: String?
        var n: Double?
        var k: Int64?
    }

    var encoded: String {
        var wire = Wire(s: sort.description, i: id)
        switch value.storage {
        case .string(let text): wire.t = text
        case .int64(let int): wire.k = int
        case .double(let double): wire.n = double
        default: break
        }
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(decoding text: String, sort: DocumentSort) throws(LibraryError) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let wire = try? JSONDecoder().decode(Wire.self, from: data) else {
            throw LibraryError(.invalidCursor, "cursor '\(text)' is not one this server issued; start again without a cursor")
        }
        guard wire.s == sort.description else {
            throw LibraryError(
                .invalidCursor,
                "cursor was issued for sort '\(wire.s)' but this request sorts by '\(sort)'; keep the sort the same across pages"
            )
        }
        self.sort = sort
        self.id = wire.i
        if let t = wire.t {
            value = t.databaseValue
        } else if let k = wire.k {
            value = k.databaseValue
        } else if let n = wire.n {
            value = n.databaseValue
        } else {
            value = .null
        }
    }
}
