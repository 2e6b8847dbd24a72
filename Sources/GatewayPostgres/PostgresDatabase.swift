import Foundation
import GatewayCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One PostgreSQL database shared by every gateway of a cluster: a small pool of connections,
/// synchronous calls because the store's ports are synchronous (SQLite's calls block too), and
/// an awaited read for the hottest request (`query(_:)` on a prepared statement).
///
/// A synchronous call blocks its thread until PostgreSQL answers. The connections live on the
/// process's shared NIO event loops (Hummingbird's too: on two cores, two more loop threads
/// cost a busy node a fifth of its polls in context switches), and no synchronous call is
/// ever made from an event loop thread — handlers run on the cooperative pool, the engine on
/// its own threads — so a waiting caller never holds the thread its answer needs.
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
    private let group: MultiThreadedEventLoopGroup
    private let maxConnections: Int
    private let pool: Mutex<Pool>
    /// Signalled when a connection goes back to the pool or one closes.
    private let returned = NSCondition()

    private struct Pool {
        var idle: [PostgresConnection] = []
        var open = 0
        var nextID = 0
        var closed = false
        /// Synchronous callers waiting in `acquire` for a connection: they come first.
        var blocked = 0
        /// Awaited statements waiting for a connection, in turn (`onPooledConnection`).
        var queued: [Lend] = []
    }

    /// What an awaited statement does for a connection: run on an idle one, open one, or wait.
    private enum Turn {
        case run(PostgresConnection)
        case open
        case wait
    }

    /// Hands an awaited statement the connection it waited for, or why it gets none.
    private typealias Lend = @Sendable (Result<PostgresConnection, any Error>) -> Void

    /// Connects once to check the URL, then runs the migrations (every node does; they are
    /// idempotent and serialized by an advisory lock).
    public init(url: String, maxConnections: Int = 16, logger: Logger = Logger(label: "pdfgate.postgres")) throws {
        location = try Location(url: url)
        self.logger = logger
        self.maxConnections = max(1, maxConnections)
        group = MultiThreadedEventLoopGroup.singleton
        pool = Mutex(Pool())
        do {
            try PostgresMigrations.run(on: self)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes every connection; calls made after this fail.
    public func close() {
        let (idle, queued) = pool.withLock { pool in
            pool.closed = true
            defer { (pool.idle, pool.queued) = ([], []) }
            return (pool.idle, pool.queued)
        }
        for lend in queued { lend(.failure(Self.closedError)) }
        for connection in idle { try? (connection.close() as EventLoopFuture<Void>).wait() }
        // The shared event loops outlive every database: nothing to shut down.
    }

    // MARK: - Running SQL

    /// Runs `body` with one connection of the pool, opening one if none is idle and the pool is
    /// not full, else waiting for one. A connection that broke is dropped, not reused.
    public func withConnection<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try acquire()
        let session = PostgresSession(connection: connection, logger: logger)
        do {
            let result = try body(session)
            release(connection)
            return result
        } catch {
            // A connection that failed below the statement level (dropped, timed out, the
            // server shutting down) may still look open while it closes, and a query queued on
            // it then would never be answered: it is closed here rather than reused.
            if Self.breaksConnection(error) { session.close() }
            release(connection)
            throw Self.translate(error, location: location)
        }
    }

    /// True for errors after which the connection is not to be trusted: anything but a
    /// statement the server refused for its content (syntax, constraint, serialization).
    static func breaksConnection(_ error: any Error) -> Bool {
        if error is PostgresTimeout { return true }
        guard let error = error as? PSQLError else { return false }  // the caller's own error: the connection is fine
        guard let state = error.serverInfo?[.sqlState] else { return true }
        // Class 08: connection exception; 57: operator intervention (shutdown, restart);
        // 53: insufficient resources; 58: system error.
        return ["08", "57", "53", "58"].contains(String(state.prefix(2)))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withConnection { session in
            try session.execute("BEGIN")
            do {
                let result = try body(session)
                try session.execute("COMMIT")
                return result
            } catch {
                try? session.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// One statement on a pooled connection.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try withConnection { try $0.query(query) }
    }

    /// A hot read that each connection parses and plans once, then only binds and executes
    /// (PostgresNIO's prepared statements: no SQL text and no row description per call).
    /// PostgreSQL spends more on parsing and planning a point read than on running it.
    func query<Statement: PostgresPreparedStatement>(_ statement: Statement) throws -> [Statement.Row] where Statement.Row: Sendable {
        let run = executing(statement)
        return try withConnection { session in
            let connection = session.connection
            return try session.wait(timeout: PostgresSession.statementTimeout) { run(connection) }
        }
    }

    /// The same, awaited rather than waited for: for a caller that must not hold a thread while
    /// PostgreSQL answers (a request handler on the cooperative pool).
    func query<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await onPooledConnection(executing(statement), otherwise: { try self.query(statement) })
    }

    /// Runs `statement` on a connection, in a task on the connection's event loop
    /// (`EventLoopTaskExecutor` says why).
    private func executing<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) -> @Sendable (PostgresConnection) -> EventLoopFuture<[Statement.Row]> where Statement.Row: Sendable {
        { [logger] connection in
            let promise = connection.eventLoop.makePromise(of: [Statement.Row].self)
            Task(executorPreference: EventLoopTaskExecutor.on(connection.eventLoop)) {
                do {
                    var rows: [Statement.Row] = []
                    for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
                    promise.succeed(rows)
                } catch {
                    promise.fail(error)
                }
            }
            return promise.futureResult
        }
    }

    /// `operation` on a connection of the pool, which goes back to the pool from its event loop:
    /// an idle one now, else the next one released (handed over by `release`, no thread
    /// waits for it); when none is idle and the pool is not full, `otherwise` (opening a
    /// connection included) on a thread of its own.
    ///
    /// The awaiting task never holds the connection: a task on the cooperative pool needs one of
    /// its threads to resume, and those threads may be blocked in a synchronous call waiting for
    /// a connection (a deadlock once every connection sits in such a task). The statement runs
    /// on the connection's event loop (`executing` runs its task there too) and the awaiting
    /// task resumes only once the connection is back.
    private func onPooledConnection<T: Sendable>(
        _ operation: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<T>,
        otherwise: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            // The task resumes straight from the connection's event loop: no promise on
            // another loop to cascade through.
            let run: @Sendable (PostgresConnection) -> Void = { [self] connection in
                let statement = PostgresSession(connection: connection, logger: logger).started(timeout: PostgresSession.statementTimeout) {
                    operation(connection)
                }
                statement.whenComplete { [self] result in
                    if case .failure(let error) = result, Self.breaksConnection(error) {
                        (connection.close() as EventLoopFuture<Void>).whenComplete { _ in self.release(connection) }
                    } else {
                        release(connection)
                    }
                    continuation.resume(with: result.mapError { Self.translate($0, location: location) })
                }
            }
            let next: Turn
            do {
                next = try pool.withLock { pool -> Turn in
                    if let connection = try popIdle(&pool) { return .run(connection) }
                    if pool.open < maxConnections { return .open }
                    pool.queued.append { lent in
                        switch lent {
                        case .success(let connection): run(connection)
                        case .failure(let error): continuation.resume(throwing: Self.translate(error, location: self.location))
                        }
                    }
                    return .wait
                }
            } catch {
                continuation.resume(throwing: error)
                return
            }
            switch next {
            case .run(let connection): run(connection)
            case .wait: break
            case .open: Self.onBlockingThread { continuation.resume(with: Result { try otherwise() }) }
            }
        }
    }

    /// The last idle connection that is still open, dropping closed ones on the way; throws once
    /// the pool is closed. Called with the pool's lock held.
    private func popIdle(_ pool: inout Pool) throws -> PostgresConnection? {
        if pool.closed { throw Self.closedError }
        while let connection = pool.idle.popLast() {
            if !connection.isClosed { return connection }
            pool.open -= 1
        }
        return nil
    }

    /// A connection outside the pool, for whoever must keep one session (an advisory lock):
    /// the caller closes it.
    package func dedicatedSession() throws -> PostgresSession {
        let id = pool.withLock { pool in
            pool.nextID += 1
            return pool.nextID
        }
        do {
            return PostgresSession(connection: try connect(id: id), logger: logger)
        } catch {
            throw Self.translate(error, location: location)
        }
    }

    private static let closedError = PostgresStoreError(code: "database_closed", message: "the database connection pool is closed")

    private func acquire() throws -> PostgresConnection {
        returned.lock()
        defer { returned.unlock() }
        while true {
            let next: (reuse: PostgresConnection?, openID: Int?) = try pool.withLock { pool in
                if let connection = try popIdle(&pool) { return (connection, nil) }
                guard pool.open < maxConnections else {
                    pool.blocked += 1  // counted before `release` can look, since it signals under `returned`
                    return (nil, nil)
                }
                pool.open += 1
                pool.nextID += 1
                return (nil, pool.nextID)
            }
            if let connection = next.reuse { return connection }
            if let id = next.openID {
                returned.unlock()
                defer { returned.lock() }
                do {
                    return try connect(id: id)
                } catch {
                    pool.withLock { $0.open -= 1 }
                    returned.signal()  // a waiter may open one in its place
                    throw Self.translate(error, location: location)
                }
            }
            returned.wait()
            pool.withLock { $0.blocked -= 1 }
        }
    }

    private func connect(id: Int) throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: location.host,
            port: location.port,
            username: location.user,
            password: location.password,
            database: location.database,
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(10)
        return try PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger).wait()
    }

    /// Puts `connection` back, or hands it (and any other idle one) to awaited statements in
    /// turn when no synchronous caller waits; wakes a synchronous caller otherwise. A closed
    /// connection leaves the pool; an awaited statement then opens one in its place, since a
    /// release it waits for may never come.
    private func release(_ connection: PostgresConnection) {
        let (keep, lends, replace) = pool.withLock { pool -> (Bool, [(Lend, PostgresConnection)], (Lend, Int)?) in
            var keep = true
            var replace: (Lend, Int)?
            if connection.isClosed || pool.closed {
                pool.open -= 1
                keep = false
                if !pool.closed, pool.blocked == 0, pool.idle.isEmpty, !pool.queued.isEmpty {
                    pool.open += 1
                    pool.nextID += 1
                    replace = (pool.queued.removeFirst(), pool.nextID)
                }
            } else {
                pool.idle.append(connection)
            }
            var lends: [(Lend, PostgresConnection)] = []
            while pool.blocked == 0, !pool.queued.isEmpty, let idle = try? popIdle(&pool) {
                lends.append((pool.queued.removeFirst(), idle))
            }
            return (keep, lends, replace)
        }
        if !keep {
            // PostgresNIO insists a connection is closed before it is freed: held until then.
            (connection.close() as EventLoopFuture<Void>).whenComplete { _ in withExtendedLifetime(connection) {} }
        }
        for (lend, lent) in lends { lend(.success(lent)) }
        if let (lend, id) = replace {
            Self.onBlockingThread { [self] in
                do {
                    lend(.success(try connect(id: id)))
                } catch {
                    pool.withLock { $0.open -= 1 }
                    lend(.failure(error))
                }
            }
        }
        returned.lock()
        returned.signal()
        returned.unlock()
    }

    /// `body`, which waits (a connect, a synchronous statement), on one of the process's threads
    /// for blocking work: never an event loop's nor a cooperative one.
    private static func onBlockingThread(_ body: @escaping @Sendable () -> Void) {
        Task { await runBlocking(body) }
    }

    /// PostgreSQL's errors, said so that an operator knows what failed: unreachable, refused,
    /// or the statement itself.
    static func translate(_ error: any Error, location: Location) -> any Error {
        if let timeout = error as? PostgresTimeout {
            return PostgresStoreError(code: "database_unavailable", message: "PostgreSQL at \(location): \(timeout)")
        }
        guard let error = error as? PSQLError else { return error }
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

/// One connection, lent for the length of a `withConnection` or `transaction` body.
public struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger

    /// How long one statement may take before its connection is given up on.
    static let statementTimeout: TimeAmount = .seconds(30)

    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try self.query(query, timeout: Self.statementTimeout)
    }

    @discardableResult
    func query(_ query: PostgresQuery, timeout: TimeAmount) throws -> [PostgresRow] {
        let (connection, logger) = (self.connection, self.logger)
        return try wait(timeout: timeout) { connection.query(query, logger: logger) }.rows
    }

    /// Starts `operation` on the connection's event loop and waits for it at most `timeout`,
    /// then closes the connection and throws: a connection that silently stopped answering must
    /// not hold its caller forever. The query, its timer and the timer's cancellation all happen
    /// in one hop to the event loop: each hop from this thread is a wake-up of that loop, and
    /// on a busy node those wake-ups cost more than the statement.
    func wait<Value: Sendable>(
        timeout: TimeAmount,
        _ operation: @escaping @Sendable () -> EventLoopFuture<Value>
    ) throws -> Value {
        try started(timeout: timeout, operation).wait()
    }

    /// `operation`'s result, failed with `PostgresTimeout` (and the connection closed) when it
    /// takes longer than `timeout`.
    func started<Value: Sendable>(
        timeout: TimeAmount,
        _ operation: @escaping @Sendable () -> EventLoopFuture<Value>
    ) -> EventLoopFuture<Value> {
        let connection = self.connection
        let eventLoop = connection.eventLoop
        return eventLoop.flatSubmit {
            let promise = eventLoop.makePromise(of: Value.self)
            let timer = eventLoop.scheduleTask(in: timeout) {
                promise.fail(PostgresTimeout(seconds: timeout.nanoseconds / 1_000_000_000))
                _ = connection.close() as EventLoopFuture<Void>
            }
            promise.futureResult.whenComplete { _ in timer.cancel() }
            operation().cascade(to: promise)
            return promise.futureResult
        }
    }

    var isClosed: Bool { connection.isClosed }

    /// Waits for the connection to close: PostgresNIO insists a connection is closed before it is freed.
    func close() { try? (connection.close() as EventLoopFuture<Void>).wait() }

    /// A statement with no parameters (several, separated by `;`, are allowed).
    public func execute(_ sql: String) throws {
        try query(PostgresQuery(unsafeSQL: sql), timeout: Self.statementTimeout)
    }
}

/// A statement PostgreSQL did not answer in time; its connection was closed.
struct PostgresTimeout: Error, CustomStringConvertible {
    var seconds: Int64
    var description: String { "no answer from PostgreSQL within \(seconds) s; the connection was closed" }
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
