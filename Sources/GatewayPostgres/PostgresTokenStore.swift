import Foundation
import GatewayLibraryModel
import PostgresNIO

/// API tokens in the database a cluster shares: a token made on one node works on all, and a
/// revocation reaches all.
public final class PostgresTokenStore: APITokens {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func insert(_ token: APIToken, secretSHA256: String) async throws {
        try await database.query(
            """
            INSERT INTO tokens (id, owner, name, secret_sha256, created_at)
            VALUES (\(token.id), \(token.owner), \(token.name), \(secretSHA256), \(token.createdAt))
            """
        )
    }

    public func owner(forSecretSHA256 hash: String) async throws -> String? {
        try await database.query("SELECT owner FROM tokens WHERE secret_sha256 = \(hash) AND revoked_at IS NULL").first?.decode(String.self)
    }

    public func list(owner: String?) async throws -> [APIToken] {
        try await database.query(
            """
            SELECT id, owner, name, created_at, revoked_at FROM tokens WHERE \(owner)::text IS NULL OR owner = \(owner)
            ORDER BY owner, created_at
            """
        ).map { row in
            let (id, owner, name, created, revoked) = try row.decode((String, String, String, Date, Date?).self)
            return APIToken(id: id, owner: owner, name: name, createdAt: created, revokedAt: revoked)
        }
    }

    public func hasLiveTokens() async throws -> Bool {
        try await !database.query("SELECT 1 FROM tokens WHERE revoked_at IS NULL LIMIT 1").isEmpty
    }

    public func revoke(id: String, now: Date) async throws {
        let rows = try await database.query("UPDATE tokens SET revoked_at = COALESCE(revoked_at, \(now)) WHERE id = \(id) RETURNING id")
        if rows.isEmpty { throw unknownToken(id) }
    }
}
