import Foundation
import GatewayHTTPClient
import GatewayProcess
import GatewayTestSupport
import Synchronization

/// A real `pdfgate serve` child process on 127.0.0.1 with a port the kernel picked, its log in
/// the store. Tests talk to it over real HTTP and stop it with SIGTERM, like an operator would.
final class ServerProcess: StoppedAfterUse, Sendable {
    let store: String
    let port: Int
    let process: Child
    let logPath: String
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on a fresh store (or `store`) with extra `serve` arguments; its log goes
    /// to `log` (default: beside the store). `executable` runs another copy of `pdfgate`; with
    /// `commandLine`, it is a wrapper run with those arguments, which starts `serve` itself.
    init(
        store: String? = nil,
        arguments: [String] = [],
        environment: [String: String] = [:],
        log: String? = nil,
        executable: String = builtProduct("pdfgate"),
        commandLine: [String]? = nil
    ) async throws {
        let store = store ?? FileManager.default.temporaryDirectory.path + "/pdfgate-serve-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        self.store = store
        var env = ["SWIFT_BACKTRACE": "enable=no"]
        for (key, value) in environment { env[key] = value }
        let log = log ?? store + ".server.log"
        self.logPath = log
        guard let (reading, writing) = socketPair() else { throw ChildFailure(description: "no pipe for serve's output") }
        let process: Child
        do {
            process = try Child(
                executable,
                commandLine ?? ["serve", "--host", "127.0.0.1", "--port", "0", "--store", store, "--log-level", "notice"] + arguments,
                environment: env,
                stdout: .descriptor(writing),
                stderr: .file(log)
            )
        } catch {
            close(reading)
            close(writing)
            throw error
        }
        close(writing)
        self.process = process
        LiveServers.started(process.pid)
        // The one line `serve` prints once it listens: "pdfgate listening on http://127.0.0.1:PORT …".
        let reader = FileHandle(fileDescriptor: reading, closeOnDealloc: true)
        let line = try await onThread { () -> String in
            var buffer = Data()
            while !buffer.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            return String(decoding: buffer, as: UTF8.self)
        }
        guard let range = line.range(of: "http://127.0.0.1:"),
            let port = Int(line[range.upperBound...].prefix(while: \.isNumber))
        else {
            await process.kill()
            LiveServers.ended(process.pid)
            let log = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw NSError(domain: "ServerProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(line) \(log)"])
        }
        self.port = port
    }

    /// SIGTERM, then waits for the exit (SIGKILL after 30 s).
    func stop() async {
        process.signal(SIGTERM)
        if await process.exit(within: .seconds(30)) == nil { await process.kill() }
        LiveServers.ended(process.pid)
    }

    func kill9() async {
        await process.kill()
        LiveServers.ended(process.pid)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

/// The servers tests started and have not stopped. A test that fails before its `stop()`
/// (whose deferred stop is a task the test process may exit before running) would otherwise
/// leave its servers running after the test run, polling their database: they are killed
/// when the test process exits.
private enum LiveServers {
    static let pids = Mutex<Set<pid_t>>([])
    static let killedAtExit: Void = {
        atexit { for pid in LiveServers.pids.withLock({ $0 }) { kill(pid, SIGKILL) } }
    }()

    static func started(_ pid: pid_t) {
        _ = killedAtExit
        _ = pids.withLock { $0.insert(pid) }
    }

    static func ended(_ pid: pid_t) {
        _ = pids.withLock { $0.remove(pid) }
    }
}

/// A small client over libcurl: real HTTP, JSON in and out.
struct APIClient: Sendable {
    let base: String
    var token: String?
    let http = HTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(60), proxy: .direct))

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        func string(_ key: String) -> String? { json[key] as? String }
    }

    func send(
        _ method: String,
        _ pathOrURL: String,
        json: Any? = nil,
        body: HTTPRequestBody = .none,
        headers: [(String, String)] = []
    )
        async throws -> Answer
    {
        let url = pathOrURL.hasPrefix("http") ? pathOrURL : base + pathOrURL
        var fields = HTTPHeaders(headers)
        if let token { fields.add("Authorization", "Bearer \(token)") }
        var requestBody = body
        if let json {
            requestBody = .bytes(Array(try JSONSerialization.data(withJSONObject: json)))
            fields.add("Content-Type", "application/json")
        }
        let response = try await http.execute(
            HTTPRequest(method: method, url: url, headers: fields, body: requestBody),
            sink: .memory(limit: 64 << 20)
        )
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Answer { try await send("GET", path, headers: headers) }

    /// A one-shot create: the office fixture `name` as the raw body, `query` after its filename
    /// (e.g. `&folder=Slides`, already percent-encoded).
    func oneShot(_ name: String, query: String = "") async throws -> Answer {
        try await send(
            "POST",
            "/v1/jobs?filename=\(name)" + query,
            body: .file(path: Fixtures.office(name)),
            headers: [("Content-Type", "application/octet-stream")]
        )
    }
    func post(_ path: String, json: Any? = nil) async throws -> Answer { try await send("POST", path, json: json) }
}
