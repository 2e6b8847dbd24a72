import Crypto
import Foundation
import GRDB
import GatewayCore

/// API bearer tokens (DESIGN §3, issue 4): a token is shown once at creation; only its SHA-256
/// is stored, so a copy of the database does not hand out access.
public final class TokenStore: Sendable {
    /// A token as listed: never the secret.
    public struct Token: Sendable, Equatable, Codable {
        public var id: String
        public var owner: String
        public var name: String
        public var createdAt: Date
        public var revokedAt: Date?

        enum CodingKeys: String, CodingKey {
            case id, owner, name
            case createdAt = "created_at"
            case revokedAt = "revoked_at"
        }
    }

    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    /// Creates a token for `owner` and returns it with its secret, which is not stored.
    public func create(owner: String, name: String = "", now: Date = Date()) throws -> (token: Token, secret: String) {
        try Library.validateOwner(owner)
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let secret = "pg_" + Data(bytes).base64URLEncoded
        let token = Token(id: String(UUID().lowercased.prefix(8)), owner: owner, name: name, createdAt: now, revokedAt: nil)
        try database.pool.write { db in
            try db.execute(
                sql: "INSERT INTO tokens (id, owner, name, secret_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.id, owner, name, Self.hash(secret), now]
            )
        }
        return (token, secret)
    }

    /// The owner of a live token, or nil for an unknown or revoked one.
    public func owner(forSecret secret: String) throws -> String? {
        try database.pool.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT owner FROM tokens WHERE secret_sha256 = ? AND revoked_at IS NULL",
                arguments: [Self.hash(secret)]
            )
        }
    }

    public func list(owner: String? = nil) throws -> [Token] {
        try database.pool.read { db in
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

    /// True when any token is live: a server bound beyond loopback needs one.
    public func hasLiveTokens() throws -> Bool {
        try database.pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tokens WHERE revoked_at IS NULL)") ?? false }
    }

    /// Revokes token `id`; revoking twice is fine, an unknown id is an error.
    public func revoke(id: String, now: Date = Date()) throws {
        try database.pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tokens WHERE id = ?)", arguments: [id]) == true else {
                throw LibraryError(.invalidArgument, "no token with id '\(id)'; `pdfgate token list` shows them")
            }
            try db.execute(sql: "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", arguments: [now, id])
        }
    }

    static func hash(_ secret: String) -> String {
        hexString(SHA256.hash(data: Data(secret.utf8)))
    }
}
