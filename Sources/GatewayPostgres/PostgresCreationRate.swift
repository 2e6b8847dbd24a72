import Foundation
import GatewayJobModel
import PostgresNIO

/// The per-owner creation rate in the database a cluster shares: one token bucket per owner,
/// refilled and taken in one statement, so concurrent creations on any nodes take turns on the
/// row and the owner gets one allowance, not one per node. Time is the database's clock, so
/// nodes whose clocks disagree still agree on the bucket.
public struct PostgresCreationRate: CreationPacing {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func take(owner: String, perMinute: Int) async throws -> Int? {
        let capacity = Double(max(perMinute, 1))
        let perSecond = capacity / 60
        // The bucket as it stands now: refilled since its last take, capped at capacity.
        let refilled = "LEAST(\(capacity)::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.updated_at) * \(perSecond)::float8)"
        // One statement takes the creation, atomically on its own: no transaction around it.
        let taken = try await database.query(
            """
            INSERT INTO creation_buckets AS b (owner, tokens, updated_at) VALUES (\(owner), \(capacity - 1), clock_timestamp())
            ON CONFLICT (owner) DO UPDATE SET tokens = \(unescaped: refilled) - 1, updated_at = clock_timestamp()
            WHERE \(unescaped: refilled) >= 1
            RETURNING 1
            """
        )
        guard taken.isEmpty else { return nil }
        // Refused: how long until the bucket holds one again (an estimate; others may take first).
        let left =
            try await database.query("SELECT \(unescaped: refilled) FROM creation_buckets b WHERE owner = \(owner)").first?.decode(Double.self) ?? 0
        return max(1, Int(((1 - left) / perSecond).rounded(.up)))
    }
}
