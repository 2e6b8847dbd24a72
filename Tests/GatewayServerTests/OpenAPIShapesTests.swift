import Foundation
import GatewayEngine
import GatewayHTTPClient
import GatewayLibraryModel
import GatewayTestSupport
import HTTPTypes
import Testing

@testable import GatewayHTTPServing
@testable import GatewayServer

/// `openapi.yaml` and what the server sends: every key an answer carries is declared in its
/// schema, and every key the schema requires is there (null where the schema allows null).
@Suite("openapi.yaml matches the answers")
struct OpenAPIShapesTests {
    /// The object schemas under `components.schemas`: property names, required keys, and which
    /// properties refer to another schema.
    struct Schemas {
        struct Object {
            var properties: Set<String> = []
            var required: Set<String> = []
            var references: [String: String] = [:]
        }

        var objects: [String: Object] = [:]

        /// Reads the layout `openapi.yaml` keeps: 4-space schema names, 6-space `required:` and
        /// `properties:`, 8-space property names, a `$ref` on the property's line or the next.
        init(yaml: String) {
            var inSchemas = false
            var name: String?
            var inProperties = false
            var property: String?
            for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
                let indent = line.prefix { $0 == " " }.count
                let text = line.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("  schemas:") {
                    inSchemas = true
                    continue
                }
                guard inSchemas, !text.isEmpty else { continue }
                if indent < 4 { break }
                if indent == 4 {
                    name = String(text.prefix { $0 != ":" })
                    inProperties = false
                    continue
                }
                guard let name else { continue }
                if indent == 6 {
                    inProperties = text == "properties:"
                    if text.hasPrefix("required: [") {
                        let list = text.dropFirst("required: [".count).prefix { $0 != "]" }
                        objects[name, default: Object()].required = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    }
                    continue
                }
                guard inProperties else { continue }
                if indent == 8 {
                    property = String(text.prefix { $0 != ":" })
                    objects[name, default: Object()].properties.insert(property!)
                }
                if let property, indent >= 8, let range = text.range(of: "#/components/schemas/") {
                    objects[name, default: Object()].references[property] = String(text[range.upperBound...].prefix { $0 != "\"" })
                }
            }
        }

        /// What is wrong with `json` as an instance of `schema`, nested objects included.
        func problems(_ json: [String: Any], as schema: String, at path: String = "") -> [String] {
            guard let object = objects[schema] else { return ["\(path): no schema \(schema)"] }
            var problems: [String] = []
            for key in object.required.subtracting(json.keys).sorted() { problems.append("\(path)\(schema).\(key): required, not sent") }
            for key in Set(json.keys).subtracting(object.properties).sorted() { problems.append("\(path)\(schema).\(key): sent, not declared") }
            for (key, target) in object.references {
                guard let nested = json[key] as? [String: Any], objects[target] != nil else { continue }
                problems += self.problems(nested, as: target, at: "\(path)\(schema).\(key) → ")
            }
            return problems
        }
    }

    static func schemas() throws -> Schemas {
        Schemas(yaml: try String(contentsOfFile: Fixtures.root + "/../openapi.yaml", encoding: .utf8))
    }

    @Test("jobs, documents, folders and errors carry exactly the keys their schemas declare")
    func answersMatchTheirSchemas() async throws {
        let schemas = try Self.schemas()
        #expect(schemas.objects["PDFInfo"]?.properties.contains("pdfa") == true)
        #expect(schemas.objects["Document"]?.required.contains("folder_id") == true)
        #expect(schemas.objects["Job"]?.references["document"] == "Document" && schemas.objects["Job"]?.references["upload"] == "UploadSlot")
        #expect(schemas.problems(["job_id": "x", "pdfa_conformance": "2B"], as: "Job").count == 7, "the checker itself catches both ways")
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            var checked: [(String, [String: Any], String)] = []

            // At the root: folder_id and parent_id are required, and null there.
            let imported = try await client.send(
                "POST",
                "/v1/documents?name=root",
                body: .file(path: Fixtures.pdf("one-page.pdf")),
                headers: [("Content-Type", "application/pdf")]
            )
            #expect(imported.json["folder_id"] is NSNull, "\(imported.text)")
            let folder = try await client.post("/v1/folders", json: ["path": "Top"])
            #expect(folder.json["parent_id"] is NSNull, "\(folder.text)")
            let child = try await client.post("/v1/folders", json: ["path": "Top/Child"])
            checked += [("import", imported.json, "Document"), ("folder", folder.json, "Folder"), ("child folder", child.json, "Folder")]
            checked.append(("GET document", try await client.get("/v1/documents/\(imported.string("id") ?? "")").json, "Document"))
            let documents = (try await client.get("/v1/documents").json["documents"] as? [[String: Any]]) ?? []
            #expect(documents.count == 1 && documents.first?["folder_id"] is NSNull, "the hand-written list encoder too: \(documents)")
            checked += documents.map { ("listed document", $0, "Document") }
            let folders = (try await client.get("/v1/folders?recursive=true").json["folders"] as? [[String: Any]]) ?? []
            checked += folders.map { ("listed folder", $0, "Folder") }

            // Jobs: waiting for an upload, queued, succeeded with a document, cancelled.
            let waiting = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"])
            checked.append(("created job", waiting.json, "Job"))
            let cancelled = try await client.send("DELETE", "/v1/jobs/\(waiting.string("job_id") ?? "")")
            checked.append(("cancelled job", cancelled.json, "Job"))
            let oneShot = try await client.oneShot("sample.rtf", query: "&folder=Top")
            checked.append(("one-shot job", oneShot.json, "Job"))
            let succeeded = try await JobAPITests.finish(client, try #require(oneShot.string("job_id")))
            #expect(succeeded["document"] is [String: Any], "\(succeeded)")
            checked.append(("succeeded job", succeeded, "Job"))
            // A job merging several inputs, and each of its inputs.
            let (contentType, form) = try FormPart.encode([
                .file("file", path: Fixtures.pdf("one-page.pdf")), .file("file", path: Fixtures.pdf("many-pages.pdf")),
            ])
            let merging = try await client.send("POST", "/v1/jobs", body: .bytes(form), headers: [("Content-Type", contentType)])
            let inputs = (merging.json["inputs"] as? [[String: Any]]) ?? []
            #expect(inputs.count == 2, "\(merging.text)")
            checked += [("merging job", merging.json, "Job")] + inputs.map { ("job input", $0, "JobInput") }
            let jobs = (try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]]) ?? []
            checked += jobs.map { ("listed job", $0, "Job") }
            checked.append(("error", try await client.get("/v1/jobs/\(UUID().uuidString.lowercased())").json, "Error"))

            for (what, json, schema) in checked {
                #expect(!json.isEmpty, "\(what): no JSON")
                let problems = schemas.problems(json, as: schema)
                #expect(problems.isEmpty, "\(what): \(problems)")
            }
            await server.stop()
        }
    }

    @Test("every 503 the API answers carries the Retry-After the spec promises")
    func unavailableSendsRetryAfter() {
        let errors: [any Error] = [
            LibraryError(.storeBusy, "another process holds the store"),
            IntakeError(.noConverter, code: "no_converter", "no converter is configured for URL_TO_PDF jobs"),
        ]
        for error in errors {
            let answer = APIError.from(error)
            #expect(answer.status == .serviceUnavailable, "\(error)")
            #expect(answer.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true, "\(error): \(answer.headers)")
        }
    }
}
