import Foundation
import GatewayLibraryModel
import GatewaySearchText
import PostgresNIO

/// The catalog's folders on PostgreSQL: creating, renaming, moving and removing them, with their paths kept in step.
extension PostgresLibraryCatalog {
    package func folder(id: String, owner: String) async throws -> FolderRecord? {
        try await database.query(Self.folderByID(id, owner: owner)).first.map(Self.folder)
    }

    package func folder(owner: String, path: String) async throws -> FolderRecord? {
        try await database.query(Self.folderByPath(path, owner: owner)).first.map(Self.folder)
    }

    package func childFolder(owner: String, parentID: String, name: String) async throws -> FolderRecord? {
        try await database.query(
            "SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND parent_id = \(parentID) AND name = \(name)"
        ).first.map(Self.folder)
    }

    package func folders(owner: String, parentID: String) async throws -> [FolderRecord] {
        try await database.query(
            """
            SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND state = 'ready' AND parent_id = \(parentID)
            ORDER BY path
            """
        ).map(Self.folder)
    }

    package func folders(owner: String, under path: String?) async throws -> [FolderRecord] {
        try await database.query(
            """
            SELECT \(unescaped: Self.folderColumns) FROM folders WHERE owner = \(owner) AND state = 'ready'
              AND (\(path)::text IS NULL OR (path > \(path.map { $0 + "/" }) AND path < \(path.map { $0 + "0" })))
            ORDER BY path
            """
        ).map(Self.folder)
    }

    package func contents(ofFolder id: String) async throws -> (documents: Int, folders: Int) {
        let row = try await database.query(
            """
            SELECT (SELECT count(*) FROM documents WHERE folder_id = \(id)), (SELECT count(*) FROM folders WHERE parent_id = \(id))
            """
        ).first
        guard let row else { return (0, 0) }
        let (documents, folders) = try row.decode((Int64, Int64).self)
        return (Int(documents), Int(folders))
    }

    package func insert(_ f: FolderRecord) async throws {
        try await database.query(
            """
            INSERT INTO folders (id, owner, parent_id, name, path, state, path_before, created_at, updated_at)
            VALUES (\(f.id), \(f.owner), \(f.parentID), \(f.name), \(f.path), \(f.state.rawValue), \(f.pathBefore), \(f.createdAt), \(f.updatedAt))
            """
        )
    }

    package func update(_ f: FolderRecord, subtreeFrom oldPath: String?) async throws {
        try await database.transaction { session in
            // Subfolders first: their paths move out from under the old path before the folder's
            // own row takes the new one, so neither step meets the (owner, path) constraint.
            if let oldPath, oldPath != f.path {
                try await session.query(
                    """
                    UPDATE folders SET path = \(f.path) || substr(path, \(Int32(oldPath.unicodeScalars.count + 1)))
                    WHERE owner = \(f.owner) AND path > \(oldPath + "/") AND path < \(oldPath + "0")
                    """
                )  // substr counts characters
            }
            try await session.query(
                """
                UPDATE folders SET owner = \(f.owner), parent_id = \(f.parentID), name = \(f.name), path = \(f.path), state = \(f.state.rawValue),
                    path_before = \(f.pathBefore), created_at = \(f.createdAt), updated_at = \(f.updatedAt)
                WHERE id = \(f.id)
                """
            )
            // Its documents' scope tokens name every folder above them.
            if let oldPath, oldPath != f.path { try await PostgresSearchIndex.moveFolder(id: f.id, in: session) }
        }
    }

    package func deleteFolder(id: String) async throws {
        try await database.query("DELETE FROM folders WHERE id = \(id)")
    }

    package func deleteTree(owner: String, path: String) async throws -> [String] {
        try await database.transaction { session in
            let folders = "owner = $1 AND (path = $2 OR (path > $3 AND path < $4))"
            var bindings = PostgresBindings()
            bindings.append(owner)
            bindings.append(path)
            bindings.append(path + "/")
            bindings.append(path + "0")
            let removed = try await session.query(
                PostgresQuery(
                    unsafeSQL: "DELETE FROM documents WHERE folder_id IN (SELECT id FROM folders WHERE \(folders)) RETURNING id",
                    binds: bindings
                )
            )
            try await session.query(PostgresQuery(unsafeSQL: "DELETE FROM folders WHERE \(folders)", binds: bindings))
            let ids = try removed.map { try $0.decode(String.self) }
            try await PostgresSearchIndex.delete(documentIDs: ids, in: session)
            return ids
        }
    }
}
