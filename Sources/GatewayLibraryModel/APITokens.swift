import Crypto
import Foundation
import GatewayCore

/// A token as listed: never the secret.
public struct APIToken: Sendable, Equatable, Codable {
    public var id: String
    public var owner: String
    public var name: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, owner: String, name: String, createdAt: Date, revokedAt: Date?) {
        self.id = id
        self.owner = owner
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, owner, name
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}

/// API bearer tokens (DESIGN §3): a token is shown once at creation; only its SHA-256 is
/// stored, so a copy of the database does not hand out access. `TokenStore` keeps them in
/// SQLite, `PostgresTokenStore` in the database a cluster shares.
public protocol APITokens: Sendable {
    func insert(_ token: APIToken, secretSHA256: String) async throws
    /// The owner of a live token with this secret hash, or nil for an unknown or revoked one.
    func owner(forSecretSHA256 hash: String) async throws -> String?
    /// Every token (of `owner` when given), oldest first.
    func list(owner: String?) async throws -> [APIToken]
    /// True when any token is live: a server bound beyond loopback needs one.
    func hasLiveTokens() async throws -> Bool
    /// Revokes token `id`; revoking twice is fine, an unknown id is an error.
    func revoke(id: String, now: Date) async throws
}

extension APITokens {
    /// Creates a token for `owner` and returns it with its secret, which is not stored.
    public func create(owner: String, name: String = "", now: Date = Date()) async throws -> (token: APIToken, secret: String) {
        try LibraryNames.validateOwner(owner)
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let secret = "pg_" + Data(bytes).base64URLEncoded
        let token = APIToken(id: String(UUID().lowercased.prefix(8)), owner: owner, name: name, createdAt: now, revokedAt: nil)
        try await insert(token, secretSHA256: APITokenHash.of(secret))
        return (token, secret)
    }

    /// The owner of a live token, or nil for an unknown or revoked one.
    public func owner(forSecret secret: String) async throws -> String? {
        try await owner(forSecretSHA256: APITokenHash.of(secret))
    }

    public func list() async throws -> [APIToken] { try await list(owner: nil) }

    public func revoke(id: String) async throws { try await revoke(id: id, now: Date()) }

    /// The error for revoking a token that does not exist.
    public func unknownToken(_ id: String) -> LibraryError {
        LibraryError(.invalidArgument, "no token with id '\(id)'; `pdfgate token list` shows them")
    }
}

enum APITokenHash {
    static func of(_ secret: String) -> String {
        hexString(SHA256.hash(data: Data(secret.utf8)))
    }
}
