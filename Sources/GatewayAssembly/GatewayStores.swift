import Foundation
import GatewayJobModel
import GatewayLibrary
import GatewayLibraryModel
import GatewayPostgres
import GatewayStore
import Logging

/// Where a gateway keeps its rows.
public enum DatabaseChoice: Sendable, Equatable, CustomStringConvertible {
    /// SQLite beside the store directory: one machine, nothing to set up.
    case embedded
    /// A PostgreSQL database that several gateways share, with one shared store directory.
    case postgres(url: String)

    /// `sqlite` (or empty) for the embedded database, otherwise a `postgres://` URL.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "sqlite" {
            self = .embedded
        } else {
            _ = try PostgresDatabase.Location(url: trimmed)
            self = .postgres(url: trimmed)
        }
    }

    /// Never the password.
    public var description: String {
        switch self {
        case .embedded: return "sqlite"
        case .postgres(let url): return (try? PostgresDatabase.Location(url: url).description) ?? "postgres"
        }
    }
}

/// The stores of one gateway, all in one database: the embedded SQLite file, or a PostgreSQL
/// database other gateways share.
public struct GatewayStores: Sendable {
    public let library: Library
    public let jobs: any JobStore
    public let idempotency: any IdempotencyKeys
    public let tokens: any APITokens
    public let outbox: any WebhookDeliveries
    /// The per-owner creation rate: this process's on one machine, the database's in a cluster.
    public let pacing: any CreationPacing
    /// True when other gateways may use the same rows at the same time.
    public let shared: Bool
    /// The PostgreSQL database the rows are in, when they are: its client runs until `close()`.
    let postgres: PostgresDatabase?

    /// Stops the PostgreSQL client (its connections close); nothing to do on SQLite, whose
    /// connections close with the process.
    public func close() async {
        await postgres?.close()
    }

    /// Opens the store at `root` with its rows where `database` says, creating and migrating
    /// what is missing, its documents' bytes where `documents` says.
    public static func open(
        root: String,
        database: DatabaseChoice,
        documents: DocumentsChoice = .folderTree,
        cacheBytes: Int64 = 2 << 30,
        grace: Duration = .seconds(15 * 60),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger,
        reconciling: Bool = true
    ) async throws -> GatewayStores {
        let objects = try await documents.open(root: root, cacheBytes: cacheBytes, grace: grace, environment: environment, logger: logger)
        switch database {
        case .embedded:
            let library = try await Library.open(root: root, objects: objects, logger: logger, reconciling: reconciling)
            let sqlite = try library.embeddedDatabase()
            return GatewayStores(
                library: library,
                jobs: SQLiteJobStore(database: sqlite),
                idempotency: IdempotencyStore(database: sqlite),
                tokens: TokenStore(database: sqlite),
                outbox: WebhookOutbox(database: sqlite),
                pacing: CreationRate(),
                shared: false,
                postgres: nil
            )
        case .postgres(let url):
            let postgres = try await PostgresDatabase.open(url: url, logger: logger)
            let library: Library
            do {
                library = try await Library.shared(root: root, database: postgres, objects: objects, logger: logger, reconciling: reconciling)
            } catch {
                await postgres.close()
                throw error
            }
            return GatewayStores(
                library: library,
                jobs: PostgresJobStore(database: postgres),
                idempotency: PostgresIdempotencyKeys(database: postgres),
                tokens: PostgresTokenStore(database: postgres),
                outbox: PostgresWebhookOutbox(database: postgres),
                pacing: PostgresCreationRate(database: postgres),
                shared: true,
                postgres: postgres
            )
        }
    }
}
