import Foundation
import GatewayAssembly
import GatewayCore
import GatewayStore
import Hummingbird
import Logging
import Synchronization

/// The HTTP API's dependencies, shared by every route file (`Routes/`): each route is a method
/// here so handlers stay plain functions over plain values.
public final class GatewayAPI: Sendable {
    public let configuration: ServerConfiguration
    public let assembly: EngineAssembly
    let tokens: TokenStore
    let signer: URLSigner
    public let metrics: GatewayMetrics
    let closing = ClosingSignal()
    /// The listener's port once bound (differs from the configured one with `--port 0`).
    let boundPort = Mutex<Int?>(nil)
    let logger: Logger

    var engine: JobEngine { assembly.engine }
    var intake: JobIntake { assembly.intake }
    var library: Library { assembly.library }

    public init(configuration: ServerConfiguration, assembly: EngineAssembly, signingKeys: [SigningKey], logger: Logger) {
        self.configuration = configuration
        self.assembly = assembly
        tokens = TokenStore(database: assembly.library.database)
        signer = URLSigner(keys: signingKeys)
        metrics = GatewayMetrics()
        self.logger = logger
    }

    /// Scheme, host and port for absolute URLs: the configured public URL, else the request's `Host`.
    /// Where a webhook payload's URLs point: `--public-url`, else the address the server is
    /// listening on (the bound port, so `--port 0` works; loopback for a wildcard host, which
    /// is no address a receiver could use — set `--public-url` when binding to one).
    var callbackBaseURL: String {
        if let publicURL = configuration.publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let port = boundPort.withLock { $0 } ?? configuration.port
        var host = configuration.host
        if host == "0.0.0.0" || host == "::" || host.isEmpty { host = "127.0.0.1" }
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(port)"
    }

    /// Called once the listener is bound.
    func listening(onPort port: Int) {
        boundPort.withLock { $0 = port }
    }

    /// Runs a library mutation (flock, renames, fsync) on a thread of its own: an fsync can take
    /// milliseconds, and the two cooperative threads also answer every poll.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await runBlocking { Result { try body() } }.get()
    }

    func baseURL(for request: Request) -> String {
        if let publicURL = configuration.publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return "http://" + host
    }

    func uploadURL(for job: Job, base: String) -> (url: String, expires: Date, maxBytes: Int64) {
        let path = "/v1/uploads/\(job.id.lowercased)"
        let expires = Date().addingTimeInterval(configuration.uploadURLLifetime.inSeconds)
        let query = signer.sign(method: "PUT", path: path, expires: expires, maxBytes: configuration.maxUploadBytes)
        return (base + path + "?" + query, expires, configuration.maxUploadBytes)
    }

    /// A fresh download URL: re-issued on every answer, valid for `downloadURLLifetime`.
    func downloadURL(for document: Document, base: String) -> String {
        downloadURL(documentID: document.id, owner: document.owner, base: base)
    }

    func downloadURL(documentID: UUID, owner: String, base: String) -> String {
        let path = "/v1/downloads/\(owner)/\(documentID.lowercased)"
        let expires = Date().addingTimeInterval(configuration.downloadURLLifetime.inSeconds)
        return base + path + "?" + signer.sign(method: "GET", path: path, expires: expires)
    }

    /// The job as the API shows it, with whatever URLs and document its status calls for.
    func jobJSON(_ job: Job, base: String) -> JobJSON {
        var json = JobJSON(job)
        switch job.state.status {
        case .created where !job.state.inputReady:
            let upload = uploadURL(for: job, base: base)
            json.upload = .init(method: "PUT", url: upload.url, expiresAt: upload.expires, maxBytes: upload.maxBytes)
        case .succeeded:
            guard let id = job.state.documentID else { break }
            // The mobile client expects a download URL on every SUCCEEDED job; once the document
            // is deleted from the library, that URL answers 410 `document_deleted` saying so.
            let url = downloadURL(documentID: id, owner: job.owner, base: base)
            json.downloadURL = url
            if let document = try? library.document(id: id, owner: job.owner) {
                var documentJSON = DocumentJSON(document)
                documentJSON.downloadURL = url
                json.document = documentJSON
            }
        default: break
        }
        return json
    }

    /// A job of `owner`, or 404 — another owner's job does not exist for this one.
    func ownedJob(_ id: String, owner: String) throws -> Job {
        guard let uuid = UUID(uuidString: id), let job = try engine.job(uuid), job.owner == owner else {
            throw APIError(.notFound, "job_not_found", "no job with id '\(id)'")
        }
        return job
    }
}

extension Request {
    /// A query parameter, percent-decoded.
    func query(_ name: String) -> String? { uri.queryParameters[Substring(name)].map(String.init) }

    /// Query parameters as a plain dictionary (last one wins).
    var queryDictionary: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in uri.queryParameters { result[String(key)] = String(value) }
        return result
    }
}

/// JSON answers with the API's encoder.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    var headers = headers
    headers[.contentType] = "application/json; charset=utf-8"
    let data = try WireJSON.encoder().encode(value)
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
