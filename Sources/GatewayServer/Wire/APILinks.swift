import Foundation
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel
import GatewaySettings
import GatewayWire
import Hummingbird
import Synchronization

/// What turns a job or a document into its API answer: absolute URLs (the configured public
/// URL, else the request's host), the signed upload and download URLs, a succeeded job's
/// document. Shared by the controllers, the event stream and the webhooks.
final class APILinks: Sendable {
    private let publicURL: String?
    private let host: String
    private let port: Int
    private let uploadURLLifetime: Duration
    private let downloadURLLifetime: Duration
    private let maxUploadBytes: Int64
    let signer: URLSigner
    private let library: any DocumentLibrary
    /// The listener's port once bound (differs from the configured one with `--port 0`).
    private let boundPort = Mutex<Int?>(nil)

    init(configuration: ServerConfiguration, signer: URLSigner, library: any DocumentLibrary) {
        publicURL = configuration.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        host = configuration.host
        port = configuration.port
        uploadURLLifetime = configuration.uploadURLLifetime
        downloadURLLifetime = configuration.downloadURLLifetime
        maxUploadBytes = configuration.maxUploadBytes
        self.signer = signer
        self.library = library
    }

    /// Called once the listener is bound.
    func listening(onPort port: Int) {
        boundPort.withLock { $0 = port }
    }

    /// Where a webhook payload's URLs point: `--public-url`, else the address the server is
    /// listening on (the bound port, so `--port 0` works; loopback for a wildcard host, which
    /// is no address a receiver could use — set `--public-url` when binding to one).
    var callbackBaseURL: String {
        if let publicURL { return publicURL }
        let port = boundPort.withLock { $0 } ?? port
        var host = host
        if host == "0.0.0.0" || host == "::" || host.isEmpty { host = "127.0.0.1" }
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(port)"
    }

    /// Scheme, host and port for absolute URLs: the configured public URL, else the request's `Host`.
    func baseURL(for request: Request) -> String {
        if let publicURL { return publicURL }
        return "http://" + (request.head.authority ?? "\(host):\(port)")
    }

    func uploadURL(for job: Job, base: String) -> (url: String, expires: Date, maxBytes: Int64) {
        let path = "/v1/uploads/\(job.id.lowercased)"
        let expires = Date().addingTimeInterval(uploadURLLifetime.inSeconds)
        let query = signer.sign(method: "PUT", path: path, expires: expires, maxBytes: maxUploadBytes)
        return (base + path + "?" + query, expires, maxUploadBytes)
    }

    /// A fresh download URL: re-issued on every answer, valid for `downloadURLLifetime`.
    func downloadURL(documentID: UUID, owner: String, base: String) -> String {
        let path = "/v1/downloads/\(owner)/\(documentID.lowercased)"
        let expires = Date().addingTimeInterval(downloadURLLifetime.inSeconds)
        return base + path + "?" + signer.sign(method: "GET", path: path, expires: expires)
    }

    /// The job as the API shows it, with whatever URLs and document its status calls for.
    func jobJSON(_ job: Job, base: String) async -> JobJSON {
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
            if let document = try? await library.document(id: id, owner: job.owner) {
                var documentJSON = DocumentJSON(document)
                documentJSON.downloadURL = url
                json.document = documentJSON
            }
            if job.state.parts > 1 {
                var documents: [DocumentJSON] = []
                for id in job.filedDocumentIDs {
                    if let document = try? await library.document(id: id, owner: job.owner) { documents.append(documentJSON(document, base: base)) }
                }
                json.documents = documents
            }
        default: break
        }
        return json
    }

    /// The document as the API shows it, with a fresh download URL.
    func documentJSON(_ document: Document, base: String) -> DocumentJSON {
        var json = DocumentJSON(document)
        json.downloadURL = downloadURL(documentID: document.id, owner: document.owner, base: base)
        return json
    }
}
