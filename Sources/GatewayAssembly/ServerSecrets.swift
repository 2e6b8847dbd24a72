import Foundation
import GatewayPostgres

/// The server's own secrets when the configuration gives none: generated once, kept in
/// `<store>/.pdfgate/secrets.json` (mode 0600), so signed URLs survive restarts.
public struct ServerSecrets: Sendable, Codable, Equatable {
    public var signingKeys: [SigningKey]
    public var webhookSecret: String

    enum CodingKeys: String, CodingKey {
        case signingKeys = "signing_keys"
        case webhookSecret = "webhook_secret"
    }

    /// The secrets of `stores`: in the database a cluster shares (seeded, on the first start,
    /// from the store's file when a folder-sharing cluster kept them there, so its signed URLs
    /// stay valid), else in the store's own file.
    public static func load(for stores: GatewayStores) async throws -> ServerSecrets {
        let path = stores.library.paths.meta + "/secrets.json"
        guard let postgres = stores.postgres else { return try loadOrCreate(metaDirectory: stores.library.paths.meta) }
        let local = try FileManager.default.contents(atPath: path).map { try JSONDecoder().decode(ServerSecrets.self, from: $0) } ?? fresh()
        let proposed = String(decoding: try JSONEncoder().encode(local), as: UTF8.self)
        let stored = try await PostgresServerSecrets(database: postgres).value("server", proposing: proposed)
        return try JSONDecoder().decode(ServerSecrets.self, from: Data(stored.utf8))
    }

    /// Reads the store's secrets, creating them on first use.
    public static func loadOrCreate(metaDirectory: String) throws -> ServerSecrets {
        let path = metaDirectory + "/secrets.json"
        if let data = FileManager.default.contents(atPath: path) {
            return try JSONDecoder().decode(ServerSecrets.self, from: data)
        }
        let secrets = fresh()
        let data = try JSONEncoder().encode(secrets)
        // Written whole under a temporary name, then linked into place: a crash never leaves half
        // a key, and when two processes start at once the first link wins and both use it.
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write \(temporary); is the store writable?")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let existing = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("cannot create \(path): errno \(errno)")
            }
            return try JSONDecoder().decode(ServerSecrets.self, from: existing)
        }
        return secrets
    }

    static func fresh() -> ServerSecrets {
        ServerSecrets(
            signingKeys: [SigningKey(id: "k1", secret: randomBytes(32).base64EncodedString())],
            webhookSecret: "whsec_" + randomBytes(32).base64EncodedString()
        )
    }

    static func randomBytes(_ count: Int) -> Data {
        var random = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) })
    }
}

/// A key that signs upload and download URLs.
public struct SigningKey: Sendable, Equatable, Codable {
    public var id: String
    /// Base64 of at least 32 random bytes.
    public var secret: String

    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }
}
