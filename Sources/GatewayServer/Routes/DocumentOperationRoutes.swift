import Foundation
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import Hummingbird

/// Operations on library documents as durable jobs: each route is a `PDF_TO_PDF` create in the
/// words of the library — merge these, split that, run these operations on it — answered like
/// `POST /v1/jobs` (201 with the job; follow it, its events or its webhook).
struct DocumentOperationController: Sendable {
    let intake: JobIntake
    let links: APILinks

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/documents/merge", method: .post) { request, context in try await self.merge(request, context) }
        group.on("/v1/documents/{id}/split", method: .post) { request, context in try await self.split(request, context) }
        group.on("/v1/documents/{id}/operations", method: .post) { request, context in try await self.operations(request, context) }
    }

    /// `{"documents": [id, …], "name"?, "folder"?, "operations"?, "password"?, "passwords"?}`.
    func merge(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let (body, _) = try await Self.body(request, context, fields: ["documents", "operations"], route: "a merge")
        guard let documents = body.documents, documents.count >= 2 else {
            throw APIError(.badRequest, "invalid_argument", "merge needs \"documents\": two or more document ids, in the order wanted")
        }
        return try await create(body, request: request, context: context)
    }

    /// `{"every": N}` or `{"ranges": ["1-3", "4-"]}`, and the create's other fields.
    func split(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var (body, data) = try await Self.body(request, context, fields: ["every", "ranges", "operations"], route: "a split")
        // The route's own fields, read as the split operation they stand for.
        let object = (data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        var split: [String: Any] = ["op": "split"]
        for key in ["every", "ranges"] { split[key] = object[key] }
        body.documents = [try Self.documentID(context)]
        body.operations = [try Self.operation(split)] + (body.operations ?? [])
        return try await create(body, request: request, context: context)
    }

    /// `{"operations": [...], "replace_original"?: true, …}` on one document.
    func operations(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var (body, _) = try await Self.body(request, context, fields: ["operations", "replace_original"], route: "an operations request")
        guard let operations = body.operations, !operations.isEmpty else {
            throw APIError(.badRequest, "invalid_argument", "name the \"operations\" to run, e.g. [{\"op\": \"pdfa\", \"part\": \"2b\"}]")
        }
        body.documents = [try Self.documentID(context)]
        return try await create(body, request: request, context: context)
    }

    private func create(_ body: JobCreateRequest, request: Request, context: GatewayRequestContext) async throws -> Response {
        var body = body
        body.type = JobType.pdfToPDF.rawValue
        let spec = try body.spec(defaultTypeFromFilename: false)
        let created = try await intake.create(spec, owner: try context.requireOwner(), secrets: body.secrets)
        return try await jsonResponse(links.jobJSON(created.job, base: links.baseURL(for: request)), status: .created)
    }

    /// The body as the job create reads it (an empty one is an empty request), and its bytes;
    /// besides the fields of every job on documents, it may hold the route's own `fields`.
    private static func body(
        _ request: Request,
        _ context: GatewayRequestContext,
        fields: Set<String>,
        route: String
    ) async throws -> (JobCreateRequest, Data) {
        var request = request
        let data = Data(try await request.collectBody(upTo: 1 << 20).readableBytesView)
        let allowed = JobCreateRequest.documentJobFields.union(fields)
        return (data.isEmpty ? JobCreateRequest() : try JobCreateRequest.decoding(data, fields: allowed, route: route), data)
    }

    private static func documentID(_ context: GatewayRequestContext) throws -> String {
        let id = try context.parameters.require("id")
        guard UUID(uuidString: id) != nil else { throw APIError(.notFound, "document_not_found", "no document with id '\(id)'") }
        return id
    }

    /// The route's own fields read as the operation they stand for, with its checks and errors.
    private static func operation(_ object: [String: Any]) throws -> PDFOperation {
        try JSONDecoder().decode(PDFOperation.self, from: JSONSerialization.data(withJSONObject: object))
    }
}
