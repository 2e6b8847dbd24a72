import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// Auth and owners over real HTTP: every route answered with another owner's ids is a 404,
/// and without a token a 401.
@Suite("Tokens and owner isolation")
struct OwnerIsolationTests {
    static func token(_ store: String, owner: String) async throws -> String {
        let result = try await run(builtProduct("pdfgate"), ["token", "create", "--owner", owner, "--store", store])
        #expect(result.status == 0, "token create: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("another owner's job, document and folder answer 404 on every route, in paths, bodies and queries; no token answers 401")
    func isolationTable() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-iso-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let aliceToken = try await Self.token(store, owner: "alice")
        let bobToken = try await Self.token(store, owner: "bob")
        let server = try await ServerProcess(store: store, arguments: ["--auth", "tokens"])
        defer { Task { await server.stop() } }
        let alice = APIClient(base: server.baseURL, token: aliceToken)
        let bob = APIClient(base: server.baseURL, token: bobToken)
        let anonymous = APIClient(base: server.baseURL)

        // Alice owns a job, a folder and a document.
        let job = try #require(try await alice.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"]).string("job_id"))
        let folder = try #require(try await alice.post("/v1/folders", json: ["path": "Private/Deep"]).string("id"))
        let imported = try await alice.send(
            "POST",
            "/v1/documents?folder=Private&filename=one.pdf",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        #expect(imported.status == 201, "import: \(imported.text)")
        let document = try #require(imported.string("id"))

        let routes: [(String, String, Any?)] = [
            ("GET", "/v1/jobs/\(job)", nil),
            ("DELETE", "/v1/jobs/\(job)", nil),
            ("POST", "/v1/jobs/\(job)/submit", nil),
            ("GET", "/v1/jobs/\(job)/events", nil),
            ("GET", "/v1/documents/\(document)", nil),
            ("PATCH", "/v1/documents/\(document)", ["name": "stolen"]),
            ("DELETE", "/v1/documents/\(document)", nil),
            ("GET", "/v1/documents/\(document)/content", nil),
            ("GET", "/v1/documents/\(document)/thumbnail", nil),
            ("GET", "/v1/folders/\(folder)", nil),
            ("PATCH", "/v1/folders/\(folder)", ["name": "stolen"]),
            ("DELETE", "/v1/folders/\(folder)?recursive=true", nil),
        ]
        for (method, path, json) in routes {
            let answer = try await bob.send(method, path, json: json)
            #expect(answer.status == 404, "\(method) \(path) as bob: \(answer.status) \(answer.text)")
            let noToken = try await anonymous.send(method, path, json: json)
            #expect(noToken.status == 401, "\(method) \(path) without a token: \(noToken.status)")
        }
        // Lists are per owner: bob sees nothing of alice's.
        for path in ["/v1/jobs", "/v1/documents?recursive=true", "/v1/folders?recursive=true"] {
            let answer = try await bob.get(path)
            #expect(answer.status == 200)
            let items = (answer.json["jobs"] ?? answer.json["documents"] ?? answer.json["folders"]) as? [Any]
            #expect(items?.isEmpty == true, "\(path) as bob: \(answer.text)")
            #expect(try await anonymous.get(path).status == 401)
        }
        // Another owner's ids in bodies and queries, not paths: each is a 404 and moves nothing.
        let bobFolder = try #require(try await bob.post("/v1/folders", json: ["path": "Mine"]).string("id"))
        let bobImport = try await bob.send(
            "POST",
            "/v1/documents?filename=mine.pdf",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        let bobDocument = try #require(bobImport.string("id"), "\(bobImport.text)")
        let smuggled: [(String, String, Any?)] = [
            ("PATCH", "/v1/documents/\(bobDocument)", ["folder_id": folder]),
            ("GET", "/v1/documents?folder=\(folder)", nil),
            ("GET", "/v1/documents?folder=\(folder)&recursive=true", nil),
            ("GET", "/v1/folders?parent=\(folder)", nil),
            ("POST", "/v1/folders", ["name": "Intruder", "parent_id": folder]),
            ("PATCH", "/v1/folders/\(bobFolder)", ["parent_id": folder]),
            ("POST", "/v1/jobs", ["type": "DOC_TO_PDF", "original_filename": "b.docx", "folder": folder]),
        ]
        for (method, path, json) in smuggled {
            let answer = try await bob.send(method, path, json: json)
            #expect(answer.status == 404 && answer.string("error") == "folder_not_found", "\(method) \(path) as bob: \(answer.status) \(answer.text)")
        }
        let oneShot = try await bob.send(
            "POST",
            "/v1/jobs?filename=b.rtf&folder=\(folder)",
            body: .file(path: Fixtures.office("sample.rtf")),
            headers: [("Content-Type", "application/octet-stream")]
        )
        #expect(oneShot.status == 404 && oneShot.string("error") == "folder_not_found", "one-shot into alice's folder: \(oneShot.text)")
        #expect(try await bob.get("/v1/documents/\(bobDocument)").string("path") == "bob/mine.pdf", "bob's document stayed")
        #expect(try await bob.get("/v1/folders/\(bobFolder)").string("path") == "Mine", "bob's folder stayed")
        #expect((try await bob.get("/v1/jobs").json["jobs"] as? [Any])?.isEmpty == true, "no job for bob")
        #expect((try await alice.get("/v1/folders?parent=\(folder)").json["folders"] as? [Any])?.isEmpty == true, "nothing new under alice's folder")
        #expect((try await alice.get("/v1/documents?folder=\(folder)").json["documents"] as? [Any])?.isEmpty == true)

        // And alice still has everything, untouched.
        #expect(try await alice.get("/v1/documents/\(document)").string("name") == "one")
        #expect(try await alice.get("/v1/folders/\(folder)").string("path") == "Private/Deep")
        #expect(try await alice.get("/v1/jobs/\(job)").string("status") == "CREATED")
        // A revoked or made-up token is refused.
        #expect(try await APIClient(base: server.baseURL, token: "pg_nope").get("/v1/jobs").status == 401)
        await server.stop()
    }

    @Test("binding beyond loopback without tokens is refused at start")
    func refusesOpenBinding() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-open-\(UUID().uuidString.prefix(8))"
        let result = try await run(builtProduct("pdfgate"), ["serve", "--host", "0.0.0.0", "--port", "0", "--auth", "none", "--store", store])
        #expect(result.status != 0)
        #expect(result.stderr.contains("refusing to serve without tokens"), "stderr: \(result.stderr)")
    }
}
