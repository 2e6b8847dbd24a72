import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayJobModel
import GatewayLocalConverters
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import GatewayServer
@testable import GatewaySettings

/// The whole API in this process, driven through its router with no socket: for behaviour that
/// needs none (validation, status codes, the library's routes). The real-process tests stay for
/// what does: the mobile-client flow, event streams, libcurl, kill and restart.
///
/// Gateways whose converter settings are the defaults convert with one warm converter lent to
/// them all (`EngineAssembly.open`'s `lentConverter`), as one gateway's jobs share its tools:
/// a LibreOffice or a Chromium then starts a few times in the whole run, not once or twice a
/// test. A gateway with URL rules, tool slots or a sandbox of its own gets a converter of its own.
struct InProcessGateway {
    let directory = TemporaryDirectory("router")
    let server: GatewayServer

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        var configuration = ServerConfiguration()
        configuration.store = directory.path + "/store"
        configure(&configuration)
        let lent = Self.convertsAsDefault(configuration.engine) ? try Self.sharedConverter.get() : nil
        server = try await GatewayServer(configuration: configuration, logger: Logger(label: "test"), lentConverter: lent)
    }

    /// Made on first use and never shut down: its tools end with this process (a sealed
    /// LibreOffice or Calibre worker when its socket closes, Chromium when its DevTools pipe does).
    private static let sharedConverter = Result { try LocalConverter(configuration: .init()) }

    /// Whether `engine` would make the converter the shared one was made as: the sandbox, limits,
    /// slots and URL rules of a default configuration (a gateway's own store is hidden from its
    /// converter; the shared one hides none of theirs, which no test here looks for).
    private static func convertsAsDefault(_ engine: EngineConfiguration) -> Bool {
        let defaults = EngineConfiguration()
        return engine.urlAllowList == defaults.urlAllowList && engine.urlPatterns == defaults.urlPatterns
            && engine.toolSlots == defaults.toolSlots && engine.converterLimits == defaults.converterLimits
            && engine.unsandboxedConverters == defaults.unsandboxedConverters && engine.hiddenPaths == defaults.hiddenPaths
    }

    /// Runs `body` with a client of the router, then ends the engine's helper processes. With
    /// `converting`, the engine runs meanwhile, so jobs are converted and filed for real.
    func run(converting: Bool = false, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let engine = server.assembly.engine
        let running = converting ? Task { await engine.run() } : nil
        defer { running?.cancel() }
        do {
            try await Application(router: server.router).test(.router, body)
        } catch {
            running?.cancel()
            await running?.value
            await server.assembly.shutdown()
            throw error
        }
        running?.cancel()
        await running?.value
        await server.assembly.shutdown()
    }

    var engine: JobEngine { server.assembly.engine }
}

extension JobEngine {
    /// Waits, without polling, for job `id` to end (succeed, fail or be cancelled); returns its
    /// last state, which a test then checks.
    func finished(_ id: String, limit: Duration = .seconds(90)) async throws -> Job {
        let id = try #require(UUID(uuidString: id), "a job id: \(id)")
        let waiting = Task { try await ended(id) }
        let timeout = afterTimeLimit(limit) { waiting.cancel() }
        defer { timeout.cancel() }
        if let job = try? await waiting.value { return job }
        let last = try await job(id)
        Issue.record("job \(id) did not end within \(limit): \(String(describing: last?.state))")
        return try #require(last, "job \(id) was never seen")
    }
}

extension TestResponse {
    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// The API error's code and message.
    var error: (code: String?, message: String?) { (json["error"] as? String, json["error_message"] as? String) }
}

extension TestClientProtocol {
    /// Sends `json` (an object, or nil for no body) or raw `bytes`, with a bearer `token` when given.
    func send(
        _ method: HTTPRequest.Method,
        _ uri: String,
        token: String? = nil,
        json: Any? = nil,
        bytes: [UInt8]? = nil,
        contentType: String? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        } else if let bytes {
            headers[.contentType] = contentType ?? "application/octet-stream"
            body = ByteBuffer(bytes: bytes)
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }

    /// POSTs `object` as JSON.
    func post(_ uri: String, json object: [String: Any], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/json"
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }
}

/// A `multipart/form-data` body: text fields and files, in order.
enum FormPart {
    case text(String, String)
    case file(String, path: String)
    /// A file sent under another name than its own.
    case named(String, path: String, filename: String)

    /// The Content-Type (with its boundary) and the body.
    static func encode(_ parts: [FormPart]) throws -> (contentType: String, bytes: [UInt8]) {
        let boundary = "pdfgate-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        for part in parts {
            body += Array("--\(boundary)\r\n".utf8)
            switch part {
            case .text(let name, let value):
                body += Array("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            case .file(let name, let path), .named(let name, let path, _):
                var filename = (path as NSString).lastPathComponent
                if case .named(_, _, let given) = part { filename = given }
                body += Array("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n".utf8)
                body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
                body += Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                body += Array("\r\n".utf8)
            }
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }
}
