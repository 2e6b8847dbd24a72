import PostgresNIO

/// Secrets every node of a cluster must agree on, kept in the database they share: the first
/// node to start writes its value, and every node (that one included) then reads the same.
public struct PostgresServerSecrets: Sendable {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// The value stored as `name`, after storing `proposed` if nothing was.
    public func value(_ name: String, proposing proposed: String) async throws -> String {
        // One statement each, atomic on its own: two nodes starting at once both read the winner.
        try await database.query("INSERT INTO server_secrets (name, value) VALUES (\(name), \(proposed)) ON CONFLICT (name) DO NOTHING")
        guard let stored = try await database.query("SELECT value FROM server_secrets WHERE name = \(name)").first else {
            throw PostgresServerSecretsError(description: "the server secret '\(name)' was written but cannot be read back")
        }
        return try stored.decode(String.self)
    }
}

struct PostgresServerSecretsError: Error, CustomStringConvertible {
    var description: String
}
