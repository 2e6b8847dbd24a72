import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The test run's PostgreSQL server: the one `PDFGATE_TEST_POSTGRES_URL` names, or else a
/// throwaway one this process starts on first use (`scripts/postgres-scratch.sh`: a new cluster
/// in a temporary directory, on a free loopback port) and stops when it exits. Every test gets
/// a database of its own, so tests never see each other's rows.
public enum TestPostgres {
    /// A new, empty database; its URL.
    public static func freshDatabaseURL() throws -> String {
        let server = try serverURL()
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try psql(server, "CREATE DATABASE \(name)")
        return server.replacingLastPathComponent(with: name)
    }

    /// Runs SQL as the server's superuser (to kill a node's connections, say).
    public static func psql(_ url: String, _ sql: String) throws {
        let result = try runBlocking("psql", [url, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], environment: nil, stdin: nil)
        guard result.status == 0 else { throw TestPostgresError(message: "psql '\(sql)' failed: \(result.stderr)") }
    }

    private static let started = Mutex<(url: String?, directory: String?)>((nil, nil))

    private static func serverURL() throws -> String {
        if let url = ProcessInfo.processInfo.environment["PDFGATE_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        return try started.withLock { started in
            if let url = started.url { return url }
            let lines = try scratch("start").split(separator: "\n").map(String.init)
            guard lines.count == 2 else { throw TestPostgresError(message: "postgres-scratch.sh start printed \(lines)") }
            started = (lines[1], lines[0])
            atexit { TestPostgres.stop() }
            return lines[1]
        }
    }

    /// A server of its own, for a test that restarts or stops it; not shared with other tests.
    public struct ScratchServer: Sendable {
        public let url: String
        let directory: String

        /// A fast restart on the same port: every connection drops, as in a failover.
        public func restart() throws { _ = try TestPostgres.scratch("restart " + directory) }

        public func stop() { _ = try? TestPostgres.scratch("stop " + directory) }
    }

    public static func startServer() throws -> ScratchServer {
        let lines = try scratch("start").split(separator: "\n").map(String.init)
        guard lines.count == 2 else { throw TestPostgresError(message: "postgres-scratch.sh start printed \(lines)") }
        return ScratchServer(url: lines[1], directory: lines[0])
    }

    /// Stops the server this process started, if it did.
    static func stop() {
        guard let directory = started.withLock({ $0.directory }) else { return }
        _ = try? scratch("stop " + directory)
    }

    fileprivate static func scratch(_ arguments: String) throws -> String { try runScratchScript("postgres-scratch.sh", arguments) }
}

public struct TestPostgresError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension String {
    /// `postgres://user@host:port/old` → `postgres://user@host:port/new`.
    fileprivate func replacingLastPathComponent(with name: String) -> String {
        guard let slash = lastIndex(of: "/") else { return self + "/" + name }
        return String(self[..<slash]) + "/" + name
    }
}
