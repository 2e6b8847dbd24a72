import Foundation
import GatewayLibrary
import GatewayStore
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// API behaviour that needs no socket, through the router in this process: how a create is
/// refused (each `JobIntake` refusal with its status and code, nothing stored), 405 with
/// `Allow`, and what the library routes answer.
@Suite("The API through its router")
struct RouterAPITests {
    @Test("each refusal of a create has its status and code, and stores nothing")
    func createRefusals() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let cases: [(body: [String: Any], status: HTTPResponse.Status, code: String)] = [
                (["type": "EBOOK_TO_PDF", "original_filename": "report.docx"], .unsupportedMediaType, "unsupported_format"),
                (["type": "DOC_TO_PDF"], .badRequest, "filename_required"),
                (["type": "URL_TO_PDF"], .badRequest, "url_required"),
                (["type": "URL_TO_PDF", "url": "http://127.0.0.1:9/admin"], .unprocessableContent, "url_forbidden"),
                (["type": "URL_TO_PDF", "url": "ftp://example.com/"], .unprocessableContent, "url_forbidden"),
                (
                    ["type": "URL_TO_PDF", "url": "https://example.com/", "callback_url": "http://169.254.169.254/latest"],
                    .unprocessableContent, "url_forbidden"
                ),
                (["type": "URL_TO_PDF", "url": "https://example.com/", "timeout_seconds": 7200], .badRequest, "invalid_argument"),
                (["type": "FAX_TO_PDF", "url": "https://example.com/"], .badRequest, "invalid_type"),
                (["type": "SCAN_TO_PDF"], .badRequest, "filename_required"),
                (["type": "URL_TO_PDF", "url": "https://example.com/", "folder": UUID().uuidString], .notFound, "folder_not_found"),
            ]
            for (body, status, code) in cases {
                let answer = try await client.post("/v1/jobs", json: body)
                #expect(answer.status == status && answer.error.code == code, "\(body): \(answer.status) \(answer.json)")
                #expect(answer.error.message?.isEmpty == false, "\(code) says what to fix")
            }
            let raw = try await client.execute(
                uri: "/v1/jobs?filename=setup.exe",
                method: .post,
                headers: [.contentType: "application/octet-stream"],
                body: ByteBuffer(string: "MZ not a document")
            )
            #expect(raw.status == .unsupportedMediaType && raw.error.code == "unsupported_format", "\(raw.json)")
            let imported = try await client.execute(
                uri: "/v1/documents",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"not": "a pdf"}"#)
            )
            #expect(imported.status == .unsupportedMediaType && imported.error.code == "unsupported_media_type")
            let jobs = try await client.execute(uri: "/v1/jobs", method: .get).json["jobs"] as? [Any]
            #expect(jobs?.isEmpty == true, "nothing was created: \(String(describing: jobs))")
        }
    }

    @Test("an owner's limits answer 429 with Retry-After; a replayed key is answered past them")
    func limits() async throws {
        let gateway = try await InProcessGateway { $0.maxActiveJobsPerOwner = 1 }
        try await gateway.run { client in
            let page = ["type": "URL_TO_PDF", "url": "https://example.com/"]
            let first = try await client.post("/v1/jobs", json: page, headers: [.idempotencyKey: "first"])
            #expect(first.status == .created, "\(first.json)")
            let second = try await client.post("/v1/jobs", json: page)
            #expect(second.status == .tooManyRequests && second.error.code == "too_many_jobs", "\(second.json)")
            #expect(second.headers[.retryAfter] == "5")
            let replay = try await client.post("/v1/jobs", json: page, headers: [.idempotencyKey: "first"])
            #expect(replay.status == .ok && replay.json["job_id"] as? String == first.json["job_id"] as? String)
            let reused = try await client.post(
                "/v1/jobs",
                json: ["type": "URL_TO_PDF", "url": "https://example.org/"],
                headers: [.idempotencyKey: "first"]
            )
            #expect(reused.status == .unprocessableContent && reused.error.code == "idempotency_key_reused")
        }
        let paced = try await InProcessGateway { $0.jobCreationsPerMinute = 1 }
        try await paced.run { client in
            let page = ["type": "URL_TO_PDF", "url": "https://example.com/"]
            #expect(try await client.post("/v1/jobs", json: page).status == .created)
            let second = try await client.post("/v1/jobs", json: page)
            #expect(second.status == .tooManyRequests && second.error.code == "rate_limited", "\(second.json)")
            #expect(second.headers[.retryAfter].flatMap(Int.init).map { (1...60).contains($0) } == true, "\(second.headers)")
            // An import is a creation too, refused before its body is read; nothing is filed.
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let imported = try await client.send(.post, "/v1/documents?name=paced", bytes: pdf, contentType: "application/pdf")
            #expect(imported.status == .tooManyRequests && imported.error.code == "rate_limited", "\(imported.json)")
            let documents = try await client.send(.get, "/v1/documents?recursive=true").json["documents"] as? [Any]
            #expect(documents?.isEmpty == true, "\(String(describing: documents))")
        }
    }

    @Test("a key another process holds answers 409 in progress, and works once that process completes it")
    func aKeyHeldElsewhereIsInProgress() async throws {
        let gateway = try await InProcessGateway()
        // Another process on the same store, in the middle of a create with this key.
        let elsewhere = IdempotencyStore(database: try await Library.open(root: gateway.server.assembly.library.paths.root).embeddedDatabase())
        #expect(try await elsewhere.hold(owner: "default", key: "shared", now: Date()) == .held)
        try await gateway.run { client in
            let page = ["type": "URL_TO_PDF", "url": "https://example.com/"]
            let meanwhile = try await client.post("/v1/jobs", json: page, headers: [.idempotencyKey: "shared"])
            #expect(meanwhile.status == .conflict && meanwhile.error.code == "idempotency_key_in_progress", "\(meanwhile.json)")
            // The other process gives up: the key is free again, and this request creates the job.
            try await elsewhere.release(owner: "default", key: "shared")
            let created = try await client.post("/v1/jobs", json: page, headers: [.idempotencyKey: "shared"])
            #expect(created.status == .created, "\(created.json)")
            let replay = try await client.post("/v1/jobs", json: page, headers: [.idempotencyKey: "shared"])
            #expect(replay.status == .ok && replay.json["job_id"] as? String == created.json["job_id"] as? String)
        }
    }

    @Test("a method a path does not support answers 405 with Allow, not 404")
    func wrongMethodIs405() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            // Found by schemathesis: TRACE (and QUERY) answered 404 on every path.
            let cases: [(method: HTTPRequest.Method, path: String, allow: String)] = [
                (.delete, "/v1/documents", "GET, POST, HEAD, OPTIONS"),
                (.put, "/v1/jobs/0b5c7c36-51c1-4a43-9e49-0d2b0d0a7f11", "GET, DELETE, HEAD, OPTIONS"),
                (.post, "/healthz", "GET, HEAD, OPTIONS"),
                (.trace, "/v1/folders", "GET, POST, HEAD, OPTIONS"),
                (HTTPRequest.Method("QUERY")!, "/openapi.yaml", "GET, HEAD, OPTIONS"),
                (.head, "/v1/documents/merge", "POST, OPTIONS"),
            ]
            for (method, path, allow) in cases {
                let answer = try await client.execute(uri: path, method: method)
                #expect(answer.status == .methodNotAllowed, "\(method) \(path): \(answer.status)")
                if method != .head { #expect(answer.error.code == "method_not_allowed", "\(method) \(path): \(answer.json)") }
                #expect(Self.methods(answer.headers[.allow]) == Self.methods(allow), "\(method) \(path)")
                let options = try await client.execute(uri: path, method: .options)
                #expect(options.status == .noContent && Self.methods(options.headers[.allow]) == Self.methods(allow), "OPTIONS \(path)")
            }
            #expect(try await client.execute(uri: "/v1/nothing-here", method: .get).status == .notFound, "an unknown path is still 404")
        }
    }

    private static func methods(_ allow: String?) -> Set<String> {
        Set((allow ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test("folders and their refusals, through the library's routes")
    func folders() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let created = try await client.post("/v1/folders", json: ["path": "Invoices/2026"])
            #expect(created.status == .created, "\(created.json)")
            let id = try #require(created.json["id"] as? String)
            let again = try await client.post("/v1/folders", json: ["path": "Invoices/2026"])
            #expect(again.json["id"] as? String == id, "creating a path that exists answers that folder: \(again.json)")
            let renamed = try await client.execute(
                uri: "/v1/folders/\(id)",
                method: .patch,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": "2027"}"#)
            )
            #expect(renamed.status == .ok && renamed.json["path"] as? String == "Invoices/2027", "\(renamed.json)")
            #expect(try await client.execute(uri: "/v1/folders/\(id)", method: .get).json["id"] as? String == id, "the id survives the rename")
            let notEmpty = try await client.execute(uri: "/v1/folders/\(try #require(created.json["parent_id"] as? String))", method: .delete)
            #expect(notEmpty.status == .conflict && notEmpty.error.code == "folder_not_empty", "\(notEmpty.json)")
            #expect(try await client.execute(uri: "/v1/folders/\(UUID().uuidString)", method: .get).status == .notFound)
        }
    }
}
