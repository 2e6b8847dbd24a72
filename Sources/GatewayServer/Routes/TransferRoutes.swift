import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel
import Hummingbird

/// The signed URLs of DESIGN §3.1: single-use uploads and re-issuable downloads. No bearer token:
/// the signature is the permission, and it names exactly one method, path and expiry.
struct TransferController: Sendable {
    let intake: JobIntake
    let library: any DocumentLibrary
    let signer: URLSigner
    let metrics: GatewayMetrics
    let maxUploadBytes: Int64

    var engine: JobEngine { intake.engine }

    func addRoutes(to router: Router<GatewayRequestContext>) {
        router.on("/v1/uploads/{id}", method: .put) { request, context in try await self.upload(request, context) }
        router.on("/v1/downloads/{owner}/{id}", method: .get) { request, context in try await self.download(request, context) }
    }

    /// Checks the signature of this exact request; 403 for a bad one, 410 for an expired one.
    private func verifySignature(_ request: Request) throws -> URLSigner.Grant {
        do {
            return try signer.verify(method: request.method.rawValue, path: request.uri.path, query: request.queryDictionary)
        } catch .expired {
            throw APIError(.gone, "url_expired", "this signed URL has expired; ask the API for a fresh one (GET the job or document again)")
        } catch {
            throw APIError(.forbidden, "bad_signature", "the URL's signature does not match; use the URL exactly as the API returned it")
        }
    }

    func upload(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let grant = try verifySignature(request)
        let id = try context.parameters.require("id")
        guard let uuid = UUID(uuidString: id), let job = try await engine.job(uuid) else {
            throw APIError(.notFound, "job_not_found", "no job with id '\(id)'")
        }
        let receiver = BodyToFile(maxBytes: min(grant.maxBytes ?? maxUploadBytes, maxUploadBytes))
        try receiver.checkDeclaredLength(request)
        // Written under a name of its own and published whole, once: a crash mid-upload leaves no
        // input, and of two concurrent PUTs only one becomes it.
        let (updated, bytes) = try await intake.receiveUpload(for: job) { partial in
            try await receiver.write(request.body, to: partial).bytes
        }
        metrics.uploaded(bytes: bytes)
        return try jsonResponse(UploadAnswer(jobID: updated.id.lowercased, status: updated.state.status, size: bytes))
    }

    func download(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        _ = try verifySignature(request)
        let owner = try context.parameters.require("owner")
        let id = try context.parameters.require("id")
        guard let uuid = UUID(uuidString: id) else { throw APIError(.notFound, "document_not_found", "no document with id '\(id)'") }
        let document = try await downloadableDocument(uuid, owner: owner)
        return try await FileResponse(document: document, in: library).response(for: request, context: context)
    }

    /// The document a download URL names. A succeeded job keeps its download URL after its
    /// document is deleted (the mobile client expects one on every SUCCEEDED job): such a URL
    /// answers 410 saying what happened, not a bare 404.
    private func downloadableDocument(_ id: UUID, owner: String) async throws -> Document {
        let found: Result<Document, LibraryError>
        do throws(LibraryError) { found = .success(try await library.document(id: id, owner: owner)) } catch { found = .failure(error) }
        guard case .failure(let error) = found, error.kind == .documentNotFound else { return try found.get() }
        guard let job = try await engine.job(Job.jobID(forDocument: id)), job.owner == owner, job.state.status == .succeeded,
            job.state.documentID == id
        else { throw error }
        throw APIError(
            .gone,
            "document_deleted",
            "job \(job.id.lowercased)'s document was deleted from the library after the job succeeded; convert the file again to get a new one"
        )
    }
}

struct UploadAnswer: Encodable {
    var jobID: String
    var status: JobStatus
    var size: Int64

    enum CodingKeys: String, CodingKey {
        case jobID = "job_id"
        case status, size
    }
}
