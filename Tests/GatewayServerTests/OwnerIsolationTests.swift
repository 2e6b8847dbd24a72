import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// Auth and owners: every route answered with another owner's ids is a 404, and without a
/// token a 401. Through the router in-process (the answers need no socket); binding beyond
/// loopback without tokens is a real start.
@Suite("Tokens and owner isolation")
struct OwnerIsolationTests {
    /// A token made the way an operator makes one: `pdfgate token create`.
    static func token(_ store: String, owner: String) async throws -> String {
        let result = try await run(builtProduct("pdfgate"), ["token", "create", "--owner", owner, "--store", store])
        #expect(result.status == 0, "token create: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("another owner's job, document and folder answer 404 on every route, in paths, bodies and queries; no token answers 401")
    func isolationTable() async throws {
        let gateway = try await InProcessGateway { $0.auth = .tokens }
        let aliceToken = try await gateway.server.tokens.create(owner: "alice").secret
        let bobToken = try await gateway.server.tokens.create(owner: "bob").secret
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        try await gateway.run { client in
            func alice(_ method: HTTPRequest.Method, _ uri: String, json: Any? = nil) async throws -> TestResponse {
                try await client.send(method, uri, token: aliceToken, json: json)
            }
            func bob(_ method: HTTPRequest.Method, _ uri: String, json: Any? = nil) async throws -> TestResponse {
                try await client.send(method, uri, token: bobToken, json: json)
            }

            // Alice owns a job, a folder and a document.
            let job = try #require(
                try await alice(.post, "/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"]).json["job_id"] as? String
            )
            let folder = try #require(try await alice(.post, "/v1/folders", json: ["path": "Private/Deep"]).json["id"] as? String)
            let imported = try await client.send(
                .post,
                "/v1/documents?folder=Private&filename=one.pdf",
                token: aliceToken,
                bytes: pdf,
                contentType: "application/pdf"
            )
            #expect(imported.status == .created, "import: \(imported.json)")
            let document = try #require(imported.json["id"] as? String)

            let routes: [(HTTPRequest.Method, String, Any?)] = [
                (.get, "/v1/jobs/\(job)", nil),
                (.delete, "/v1/jobs/\(job)", nil),
                (.post, "/v1/jobs/\(job)/submit", nil),
                (.get, "/v1/jobs/\(job)/events", nil),
                (.get, "/v1/documents/\(document)", nil),
                (.patch, "/v1/documents/\(document)", ["name": "stolen"]),
                (.delete, "/v1/documents/\(document)", nil),
                (.get, "/v1/documents/\(document)/content", nil),
                (.get, "/v1/documents/\(document)/thumbnail", nil),
                (.get, "/v1/folders/\(folder)", nil),
                (.patch, "/v1/folders/\(folder)", ["name": "stolen"]),
                (.delete, "/v1/folders/\(folder)?recursive=true", nil),
            ]
            for (method, path, json) in routes {
                let answer = try await bob(method, path, json: json)
                #expect(answer.status == .notFound, "\(method) \(path) as bob: \(answer.status) \(answer.json)")
                let noToken = try await client.send(method, path, json: json)
                #expect(noToken.status == .unauthorized, "\(method) \(path) without a token: \(noToken.status)")
            }
            // Lists are per owner: bob sees nothing of alice's.
            for path in ["/v1/jobs", "/v1/documents?recursive=true", "/v1/folders?recursive=true"] {
                let answer = try await bob(.get, path)
                #expect(answer.status == .ok)
                let items = (answer.json["jobs"] ?? answer.json["documents"] ?? answer.json["folders"]) as? [Any]
                #expect(items?.isEmpty == true, "\(path) as bob: \(answer.json)")
                #expect(try await client.send(.get, path).status == .unauthorized)
            }
            // Another owner's ids in bodies and queries, not paths: each is a 404 and moves nothing.
            let bobFolder = try #require(try await bob(.post, "/v1/folders", json: ["path": "Mine"]).json["id"] as? String)
            let bobImport = try await client.send(
                .post,
                "/v1/documents?filename=mine.pdf",
                token: bobToken,
                bytes: pdf,
                contentType: "application/pdf"
            )
            let bobDocument = try #require(bobImport.json["id"] as? String, "\(bobImport.json)")
            let smuggled: [(HTTPRequest.Method, String, Any?)] = [
                (.patch, "/v1/documents/\(bobDocument)", ["folder_id": folder]),
                (.get, "/v1/documents?folder=\(folder)", nil),
                (.get, "/v1/documents?folder=\(folder)&recursive=true", nil),
                (.get, "/v1/folders?parent=\(folder)", nil),
                (.post, "/v1/folders", ["name": "Intruder", "parent_id": folder]),
                (.patch, "/v1/folders/\(bobFolder)", ["parent_id": folder]),
                (.post, "/v1/jobs", ["type": "DOC_TO_PDF", "original_filename": "b.docx", "folder": folder]),
            ]
            for (method, path, json) in smuggled {
                let answer = try await bob(method, path, json: json)
                #expect(
                    answer.status == .notFound && answer.error.code == "folder_not_found",
                    "\(method) \(path) as bob: \(answer.status) \(answer.json)"
                )
            }
            let rtf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.rtf"))))
            let oneShot = try await client.send(.post, "/v1/jobs?filename=b.rtf&folder=\(folder)", token: bobToken, bytes: rtf)
            #expect(oneShot.status == .notFound && oneShot.error.code == "folder_not_found", "one-shot into alice's folder: \(oneShot.json)")
            #expect(try await bob(.get, "/v1/documents/\(bobDocument)").json["path"] as? String == "bob/mine.pdf", "bob's document stayed")
            #expect(try await bob(.get, "/v1/folders/\(bobFolder)").json["path"] as? String == "Mine", "bob's folder stayed")
            #expect((try await bob(.get, "/v1/jobs").json["jobs"] as? [Any])?.isEmpty == true, "no job for bob")
            #expect(
                (try await alice(.get, "/v1/folders?parent=\(folder)").json["folders"] as? [Any])?.isEmpty == true,
                "nothing new under alice's folder"
            )
            #expect((try await alice(.get, "/v1/documents?folder=\(folder)").json["documents"] as? [Any])?.isEmpty == true)

            // And alice still has everything, untouched.
            #expect(try await alice(.get, "/v1/documents/\(document)").json["name"] as? String == "one")
            #expect(try await alice(.get, "/v1/folders/\(folder)").json["path"] as? String == "Private/Deep")
            #expect(try await alice(.get, "/v1/jobs/\(job)").json["status"] as? String == "CREATED")
            // A revoked or made-up token is refused.
            #expect(try await client.send(.get, "/v1/jobs", token: "pg_nope").status == .unauthorized)
        }
    }

    @Test("a token is also a Basic-auth password (Gotenberg's clients know only basic auth), for the same owner")
    func tokenAsBasicPassword() async throws {
        let gateway = try await InProcessGateway { $0.auth = .tokens }
        let token = try await gateway.server.tokens.create(owner: "alice").secret
        try await gateway.run { client in
            func basic(_ user: String, _ password: String) async throws -> TestResponse {
                let credentials = Data("\(user):\(password)".utf8).base64EncodedString()
                return try await client.execute(uri: "/v1/jobs", method: .get, headers: [.authorization: "Basic \(credentials)"])
            }
            #expect(try await basic("gotenberg", token).status == .ok)
            #expect(try await basic("", token).status == .ok, "any user name goes with a token")
            let wrong = try await basic("alice", "not-a-token")
            #expect(wrong.status == .unauthorized && wrong.error.code == "invalid_token", "\(wrong.json)")
            let empty = try await basic("alice", "")
            #expect(empty.status == .unauthorized && empty.error.code == "unauthorized", "\(empty.json)")
            let garbage = try await client.execute(uri: "/v1/jobs", method: .get, headers: [.authorization: "Basic !!!"])
            #expect(garbage.status == .unauthorized)
        }
    }

    @Test("binding beyond loopback without tokens is refused at start")
    func refusesOpenBinding() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-open-\(UUID().uuidString.prefix(8))"
        let result = try await run(builtProduct("pdfgate"), ["serve", "--host", "0.0.0.0", "--port", "0", "--auth", "none", "--store", store])
        #expect(result.status != 0)
        #expect(result.stderr.contains("refusing to serve without tokens"), "stderr: \(result.stderr)")
    }
}
