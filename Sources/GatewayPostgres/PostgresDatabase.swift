import Foundation
import GatewayCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// One PostgreSQL database shared by every gateway of a cluster, through postgres-nio's
/// `PostgresClient`: its pool of connections on the process's shared event loops (Hummingbird's
/// too), its prepared statements for the hot reads. Every call is awaited; no thread waits for
/// PostgreSQL.
///
/// The client runs (`PostgresClient.run()`) from `open` until `close()`, in a task of its own
/// rather than as a service of the group: the migrations need it before any group runs, and so
/// do the CLI's commands, which run none. In `serve`, the group's last service calls `close()`.
public final class PostgresDatabase: Sendable {
    /// Where and as whom to connect, from a `postgres://user:password@host:port/database` URL.
    public struct Location: Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String

        public init(url: String) throws {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let host = components.host, !host.isEmpty
            else {
                throw PostgresStoreError(
                    code: "invalid_database_url",
                    message: "'\(url)' is not a PostgreSQL URL; write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
                )
            }
            self.host = host
            port = components.port ?? 5432
            user = components.user ?? "postgres"
            password = components.password?.removingPercentEncoding
            let path = String(components.path.drop { $0 == "/" })
            database = path.isEmpty ? user : path
        }

        /// The URL without its password, for logs and errors.
        public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
    }

    public let location: Location
    let logger: Logger
    let client: PostgresClient
    private let running: Task<Void, Never>

    /// Connects once to check the URL (a wrong one fails here, at once, saying so), then runs
    /// the migrations (every node does; they are idempotent and serialized by an advisory lock)
    /// and starts the client's pool.
    public static func open(
        url: String,
        maxConnections: Int = 16,
        logger: Logger = Logger(label: "pdfgate.postgres")
    ) async throws
        -> PostgresDatabase
    {
        let database = try PostgresDatabase(location: Location(url: url), maxConnections: maxConnections, logger: logger)
        do {
            let session = try await database.dedicatedSession()
            do {
                try await PostgresMigrations.run(in: session)
                await session.close()
            } catch {
                await session.close()
                throw error
            }
        } catch {
            await database.close()
            throw translate(error, location: database.location)
        }
        return database
    }

    private init(location: Location, maxConnections: Int, logger: Logger) {
        self.location = location
        self.logger = logger
        var configuration = PostgresClient.Configuration(
            host: location.host,
            port: location.port,
            username: location.user,
            password: location.password,
            database: location.database,
            tls: .disable
        )
        configuration.options.maximumConnections = max(1, maxConnections)
        configuration.options.connectTimeout = .seconds(10)
        // A statement PostgreSQL has not finished in 30 s is stopped there, and said so.
        configuration.options.additionalStartupParameters = [("statement_timeout", "30s")]
        let client = PostgresClient(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, backgroundLogger: logger)
        self.client = client
        // Cancelled and awaited by `close()`; cancelled by `deinit` if nobody closed it.
        running = Task { await client.run() }
    }

    deinit { running.cancel() }

    /// Stops the client: its connections close, and calls made after this fail.
    public func close() async {
        running.cancel()
        await running.value
    }

    // MARK: - Running SQL

    /// Runs `body` with one connection of the pool.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        let (client, logger) = (client, logger)
        return try await answered {
            try await client.withConnection { connection in try await body(PostgresSession(connection: connection, logger: logger)) }
        }
    }

    /// How long a call may wait for PostgreSQL before its caller is told the database did not
    /// answer: postgres-nio bounds connecting, not answering.
    static let answerTimeout: TimeAmount = .seconds(30)

    /// `operation`'s result, or `database_unavailable` once `answerTimeout` has passed. Seen
    /// when the server restarts under a busy pool: a few calls then never return, and the jobs
    /// they belong to would stay PROCESSING for good. The operation runs in a task of its own,
    /// so a caller is answered even when the operation cannot be interrupted; the caller's
    /// cancellation is not passed on (a statement, once sent, runs to its end, as it would on
    /// the server anyway).
    @discardableResult
    func answered<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let location = location
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            // Whichever comes first, the answer or the timer, takes the continuation.
            let pending = Mutex<(waiting: CheckedContinuation<T, any Error>?, work: Task<Void, Never>?)>((continuation, nil))
            let take: @Sendable () -> CheckedContinuation<T, any Error>? = {
                pending.withLock { state in
                    defer { state.waiting = nil }
                    return state.waiting
                }
            }
            let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: Self.answerTimeout) {
                guard let waiting = take() else { return }
                pending.withLock { $0.work }?.cancel()
                waiting.resume(
                    throwing: PostgresStoreError(
                        code: "database_unavailable",
                        message: "PostgreSQL at \(location) did not answer within \(Self.answerTimeout.nanoseconds / 1_000_000_000) s"
                    )
                )
            }
            // Cancelled by the timer; nobody awaits it (the continuation carries its answer).
            let work = Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(Self.translate(error, location: location)) }
                timer.cancel()
                take()?.resume(with: result)
            }
            pending.withLock { $0.work = work }
        }
    }

    /// True for errors after which the connection is not to be trusted: anything but a
    /// statement the server refused for its content (syntax, constraint, serialization).
    static func breaksConnection(_ error: any Error) -> Bool {
        if let error = error as? PostgresStoreError {
            guard let state = error.sqlState else { return error.code == "database_unavailable" }
            return ["08", "57", "53", "58"].contains(String(state.prefix(2)))
        }
        guard let error = error as? PSQLError else { return false }  // the caller's own error: the connection is fine
        guard let state = error.serverInfo?[.sqlState] else { return true }
        // Class 08: connection exception; 57: operator intervention (shutdown, restart);
        // 53: insufficient resources; 58: system error.
        return ["08", "57", "53", "58"].contains(String(state.prefix(2)))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws, its
    /// error passed on as it is (postgres-nio's own `withTransaction` wraps it).
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await withConnection { session in
            try await session.execute("BEGIN")
            do {
                let result = try await body(session)
                try await session.execute("COMMIT")
                return result
            } catch {
                try? await session.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// One statement on a pooled connection.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let (client, logger) = (client, logger)
        return try await answered { try await client.query(query, logger: logger).collect() }
    }

    /// A hot read that each connection parses and plans once, then only binds and executes
    /// (a prepared statement: no SQL text and no row description per call). PostgreSQL spends
    /// more on parsing and planning a point read than on running it.
    ///
    /// Not bounded by `answered`, whose task and timer slow every poll: a poll is a read its
    /// client gives up on by itself; the engine's reads and every write go through the bounded
    /// calls.
    func query<Statement: PostgresPreparedStatement & Sendable>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        do {
            return try await Self.rows(of: statement, client: client, logger: logger)
        } catch {
            throw Self.translate(error, location: location)
        }
    }

    /// A prepared statement that writes: bounded like every write (`answered`).
    func write<Statement: PostgresPreparedStatement & Sendable>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        let (client, logger) = (client, logger)
        return try await answered { try await Self.rows(of: statement, client: client, logger: logger) }
    }

    /// A prepared statement's rows, on a pooled connection.
    private static func rows<Statement: PostgresPreparedStatement & Sendable>(
        of statement: Statement,
        client: PostgresClient,
        logger: Logger
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        var rows: [Statement.Row] = []
        for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }

    /// A connection outside the pool, for whoever must keep one session (an advisory lock, the
    /// migrations): the caller closes it.
    package func dedicatedSession() async throws -> PostgresSession {
        var configuration = PostgresConnection.Configuration(
            host: location.host,
            port: location.port,
            username: location.user,
            password: location.password,
            database: location.database,
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(10)
        do {
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(),
                configuration: configuration,
                id: Int.random(in: 1_000_000...Int.max),
                logger: logger
            )
            return PostgresSession(connection: connection, logger: logger)
        } catch {
            throw Self.translate(error, location: location)
        }
    }

    /// PostgreSQL's errors, said so that an operator knows what failed: unreachable, refused,
    /// or the statement itself.
    static func translate(_ error: any Error, location: Location) -> any Error {
        let closed = PostgresStoreError(code: "database_closed", message: "the database connection pool is closed")
        if let error = error as? ConnectionPoolError {
            switch error {
            case .requestCancelled: return CancellationError()
            case .poolShutdown: return closed
            default:  // it gave up opening connections: the server has been unreachable a while
                return PostgresStoreError(
                    code: "database_unavailable",
                    message: "PostgreSQL at \(location) cannot be reached; check that the server runs and the URL is right"
                )
            }
        }
        guard let error = error as? PSQLError else { return error }
        switch error.code {
        case .queryCancelled: return CancellationError()
        case .poolClosed: return closed
        default: break
        }
        if let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? "\(error)"
            return PostgresStoreError(
                code: "database_error",
                message: "PostgreSQL (\(location)) refused a statement: \(message) [\(state)]",
                sqlState: state
            )
        }
        return PostgresStoreError(
            code: "database_unavailable",
            message: "PostgreSQL at \(location) cannot be reached (\(error.code)); check that the server runs and the URL is right"
        )
    }
}

/// One connection, lent for the length of a `withConnection` or `transaction` body, or kept
/// (`dedicatedSession`).
public struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// A statement with no parameters (several, separated by `;`, are allowed).
    public func execute(_ sql: String) async throws {
        try await query(PostgresQuery(unsafeSQL: sql))
    }

    var isClosed: Bool { connection.isClosed }

    /// Closes the connection: PostgresNIO insists a connection is closed before it is freed.
    func close() async { try? await connection.close() }
}

/// A failure of the PostgreSQL store that is not the client's doing.
public struct PostgresStoreError: GatewayError {
    public var code: String
    public var message: String
    /// PostgreSQL's SQLSTATE, when the server refused a statement (e.g. 23505, a unique violation).
    public var sqlState: String?

    public init(code: String, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }
}
