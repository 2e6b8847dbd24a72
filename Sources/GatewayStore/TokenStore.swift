import Foundation
import GRDB
import GatewayLibraryModel

/// API bearer tokens in the store's SQLite database.
public final class TokenStore: APITokens {
    public typealias Token = APIToken

    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    public func insert(_ token: APIToken, secretSHA256: String) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "INSERT INTO tokens (id, owner, name, secret_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.id, token.owner, token.name, secretSHA256, token.createdAt]
            )
        }
    }

    public func owner(forSecretSHA256 hash: String) async throws -> String? {
        try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT owner FROM tokens WHERE secret_sha256 = ? AND revoked_at IS NULL", arguments: [hash])
        }
    }

    public func list(owner: String?) async throws -> [Token] {
        try await database.pool.read { db in
            let rows =
                if let owner {
                    try Row.fetchAll(db, sql: "SELECT * FROM tokens WHERE owner = ? ORDER BY created_at", arguments: [owner])
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM tokens ORDER BY owner, created_at")
                }
            return rows.map { row in
                Token(id: row["id"], owner: row["owner"], name: row["name"], createdAt: row["created_at"], revokedAt: row["revoked_at"])
            }
        }
    }

    public func hasLiveTokens() async throws -> Bool {
        try await database.pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tokens WHERE revoked_at IS NULL)") ?? false }
    }

    public func revoke(id: String, now: Date) async throws {
        try await database.pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tokens WHERE id = ?)", arguments: [id]) == true else {
                throw unknownToken(id)
            }
            try db.execute(sql: "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", arguments: [now, id])
        }
    }
}
