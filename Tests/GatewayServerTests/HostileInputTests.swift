import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// What schemathesis found (each a regression test here), and the hostile
/// inputs tried by hand — deep JSON, deep and long folder paths, NFC against NFD, names of
/// dots and spaces, forms of thousands of parts. Every refusal is a 4xx with a stable code and
/// a message saying what to do; nothing is half-made.
@Suite("hostile and fuzzed API input")
struct HostileInputTests {
    @Test("booleans are true or false only, the same on every route")
    func strictBooleans() async throws {
        try await InProcessGateway().run { client in
            for value in ["yes", "1", "", "null", "on"] {
                let answer = try await client.send(.get, "/v1/folders?recursive=\(value)")
                #expect(answer.status == .badRequest && answer.error.code == "invalid_argument", "recursive=\(value): \(answer.json)")
                #expect(answer.error.message?.contains("true or false") == true)
            }
            #expect(try await client.send(.get, "/v1/folders?recursive=TRUE").status == .ok)
            let landscape = try await client.send(
                .post,
                "/v1/jobs?filename=a.html&landscape=1",
                bytes: Array("<p>x</p>".utf8),
                contentType: "text/html"
            )
            #expect(landscape.status == .badRequest && landscape.error.code == "invalid_options", "\(landscape.json)")
        }
    }

    /// schemathesis made an outline of 35,000 entries in the `operations` query: its request head
    /// outgrew what the HTTP parser takes, whose bare 400 has no JSON. Text fields take no
    /// outline (the spec's `FieldOperations`), and a list holds at most 500 entries side by side.
    @Test("bookmarks come in a JSON body, not a query parameter; what the spec refuses, the server refuses")
    func outlinesStayOutOfURLs() async throws {
        try await InProcessGateway().run { client in
            // A one-shot create of a small page, one query field set to `value`.
            func page(_ field: String, _ value: String) async throws -> TestResponse {
                let query = "/v1/jobs?filename=a.html&\(field)=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                return try await client.send(.post, query, bytes: Array("<p>x</p>".utf8), contentType: "text/html")
            }
            let query = try await page("operations", #"[{"op":"bookmarks","items":[{"title":"A","page":1}]}]"#)
            #expect(query.status == .badRequest && query.error.code == "invalid_operation", "\(query.json)")
            #expect(query.error.message?.contains("JSON create's body") == true, "\(query.json)")
            // A URL job with a file body and no name: the contradiction, not a missing ebook name.
            let urlWithFile = try await client.send(.post, "/v1/jobs?type=URL_TO_PDF", bytes: [1, 2, 3], contentType: "application/octet-stream")
            #expect(urlWithFile.status == .unprocessableContent && urlWithFile.error.code == "conflicting_type", "\(urlWithFile.json)")
            for ranges in ["B", "01", "+1"] {
                let answer = try await page("page_ranges", ranges)
                #expect(answer.status == .badRequest && answer.error.code == "invalid_options", "\(ranges): \(answer.json)")
            }
        }
    }

    @Test("an empty cursor is the first page; one the server did not issue is 422")
    func cursors() async throws {
        try await InProcessGateway().run { client in
            for path in ["/v1/jobs?cursor=", "/v1/documents?cursor="] {
                #expect(try await client.send(.get, path).status == .ok, "\(path)")
            }
            for path in ["/v1/jobs?cursor=%C2%AE", "/v1/documents?cursor=nonsense"] {
                let answer = try await client.send(.get, path)
                #expect(answer.status == .unprocessableContent && answer.error.code == "invalid_cursor", "\(path): \(answer.json)")
            }
        }
    }

    @Test("a PATCH that changes nothing, or names a field the route does not take, is refused")
    func emptyAndUnknownPatches() async throws {
        try await InProcessGateway().run { client in
            let folder = try await client.post("/v1/folders", json: ["path": "Kept"])
            let id = try #require(folder.json["id"] as? String)
            for body in [nil, [String: Any]()] as [[String: Any]?] {
                let answer = try await client.send(.patch, "/v1/folders/\(id)", json: body)
                #expect(answer.status == .badRequest && answer.error.code == "invalid_argument", "\(String(describing: body)): \(answer.json)")
                #expect(answer.error.message?.contains("at least one of") == true)
            }
            let typo = try await client.send(.patch, "/v1/folders/\(id)", json: ["nmae": "New"])
            #expect(typo.status == .badRequest && typo.error.code == "unknown_field" && typo.error.message?.contains("nmae") == true)
            let both = try await client.send(.patch, "/v1/folders/\(id)", json: ["parent": "", "parent_id": NSNull()])
            #expect(both.status == .badRequest && both.error.code == "invalid_argument", "\(both.json)")
            let wrongType = try await client.post("/v1/folders", json: ["name": "X", "parent": [String: Any]()])
            #expect(wrongType.status == .badRequest, "\(wrongType.json)")
            let pathAndName = try await client.post("/v1/folders", json: ["path": "A", "parent_id": NSNull()])
            #expect(pathAndName.status == .badRequest, "\(pathAndName.json)")
            let unknownJobField = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": "https://example.com/", "callback_ur1": "x"])
            #expect(unknownJobField.status == .badRequest && unknownJobField.error.code == "unknown_field", "\(unknownJobField.json)")
            let folders = try await client.send(.get, "/v1/folders?recursive=true").json["folders"] as? [[String: Any]]
            #expect(folders?.map { $0["path"] as? String } == ["Kept"], "nothing else was made: \(String(describing: folders))")
        }
    }

    @Test("JSON nested 10,000 deep is refused for its depth, on every JSON route")
    func deepJSON() async throws {
        try await InProcessGateway().run { client in
            let deep = Array(String(repeating: "[", count: 10_000).utf8) + Array(String(repeating: "]", count: 10_000).utf8)
            let nested = Array(("{\"name\":" + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_001)).utf8)
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/v1/jobs", deep), (.post, "/v1/folders", nested), (.post, "/v1/documents/merge", nested),
            ] {
                let answer = try await client.send(method, path, bytes: body, contentType: "application/json")
                #expect(answer.status == .badRequest && answer.error.code == "invalid_json", "\(path): \(answer.json)")
                #expect(answer.error.message?.contains("nested more than 64 levels") == true, "\(path): \(answer.json)")
            }
        }
    }

    @Test("a folder path of 1,000 levels, or too long for a directory tree, is 400 with the limit; nothing is made")
    func deepFolderPaths() async throws {
        try await InProcessGateway().run { client in
            let deep = try await client.post("/v1/folders", json: ["path": Array(repeating: "a", count: 1000).joined(separator: "/")])
            #expect(deep.status == .badRequest && deep.error.code == "invalid_path", "\(deep.json)")
            #expect(deep.error.message?.contains("1000 levels deep; at most 64") == true, "\(deep.json)")
            // 300 levels of ten letters made mkdir fail with ENAMETOOLONG halfway down: a 500.
            let long = try await client.post("/v1/folders", json: ["path": Array(repeating: "abcdefghij", count: 60).joined(separator: "/")])
            #expect(long.status == .badRequest && long.error.code == "invalid_path", "\(long.json)")
            #expect(long.error.message?.contains("at most 512") == true, "\(long.json)")
            // At the limit it works, and a move that would push a subtree past it is refused.
            let limit = Array(repeating: "b", count: 64).joined(separator: "/")
            #expect(try await client.post("/v1/folders", json: ["path": limit]).status == .created)
            let other = try await client.post("/v1/folders", json: ["path": "Other"])
            let top = try await client.send(.get, "/v1/folders").json["folders"] as? [[String: Any]]
            let b = try #require(top?.first { $0["path"] as? String == "b" }?["id"] as? String)
            let moved = try await client.send(.patch, "/v1/folders/\(b)", json: ["parent_id": try #require(other.json["id"] as? String)])
            #expect(moved.status == .badRequest && moved.error.code == "invalid_path", "\(moved.json)")
            // A job asking to be filed there is refused when created, not after converting.
            let job = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": "https://example.com/", "folder": "a/../b"])
            #expect(job.status == .badRequest && job.error.code == "invalid_path", "\(job.json)")
            // A body that names its own type does not hide a bad one in the query.
            let both = try await client.post("/v1/jobs?type=AAA", json: ["type": "URL_TO_PDF", "url": "https://example.com/"])
            #expect(both.status == .badRequest && both.error.code == "invalid_type", "\(both.json)")
            let conflict = try await client.post("/v1/jobs?on_conflict=never", json: ["url": "https://example.com/", "on_conflict": "fail"])
            #expect(conflict.status == .badRequest && conflict.error.code == "invalid_argument", "\(conflict.json)")
            // A backwards page range is 422 in a create's operations as on the operations route.
            let backwards = #"[{"op":"rotate","angle":90,"pages":"5-3"}]"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let ranged = try await client.post("/v1/jobs?operations=\(backwards)", json: ["url": "https://example.com/"])
            #expect(ranged.status == .unprocessableContent && ranged.error.code == "invalid_page_range", "\(ranged.json)")
            let jobs = try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]
            #expect(jobs?.isEmpty == true)
        }
    }

    @Test("NFC and NFD spellings name one folder; names of only dots or spaces are refused; a lookup by such a path is 404")
    func unicodeAndBlankNames() async throws {
        try await InProcessGateway().run { client in
            let composed = try await client.post("/v1/folders", json: ["path": "Caf\u{E9}"])
            let decomposed = try await client.post("/v1/folders", json: ["path": "Cafe\u{301}"])
            #expect(composed.status == .created && decomposed.json["id"] as? String == composed.json["id"] as? String, "\(decomposed.json)")
            #expect(decomposed.json["name"] as? String == "Caf\u{E9}", "stored composed (NFC)")
            let byNFD = try await client.send(.get, "/v1/documents?folder=Cafe%CC%81")
            #expect(byNFD.status == .ok, "a lookup in NFD finds the NFC folder: \(byNFD.json)")
            for name in [".", "..", "...", "   ", ". .", "\u{200B}"] {
                let answer = try await client.post("/v1/folders", json: ["name": name])
                #expect(answer.status == .badRequest && answer.error.code?.hasPrefix("invalid_") == true, "'\(name)': \(answer.json)")
            }
            for parent in [".", "a/../b", "..."] {
                let answer = try await client.send(.get, "/v1/folders?parent=\(parent)")
                #expect(answer.status == .notFound && answer.error.code == "folder_not_found", "parent=\(parent): \(answer.json)")
            }
            let folders = try await client.send(.get, "/v1/folders?recursive=true").json["folders"] as? [Any]
            #expect(folders?.count == 1)
        }
    }

    @Test("an import whose file name makes no name is filed as \"document\"; an empty name field is no name")
    func importWithoutUsableName() async throws {
        try await InProcessGateway().run { client in
            let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let dots = try await client.send(.post, "/v1/documents?filename=....pdf&name=", bytes: pdf, contentType: "application/pdf")
            #expect(dots.status == .created && dots.json["name"] as? String == "document", "\(dots.json)")
            let named = try await client.send(.post, "/v1/documents?filename=Scan.pdf&name=", bytes: pdf, contentType: "application/pdf")
            #expect(named.status == .created && named.json["name"] as? String == "Scan", "\(named.json)")
        }
    }

    @Test("a query is read as a form: + is a space, in names as in values")
    func plusIsSpace() async throws {
        try await InProcessGateway().run { client in
            let folder = try await client.post("/v1/folders", json: ["path": "Tax Returns"])
            #expect(folder.status == .created)
            let listed = try await client.send(.get, "/v1/folders?parent=Tax+Returns&recursive=false")
            #expect(listed.status == .ok, "\(listed.json)")
            let byEscape = try await client.send(.get, "/v1/folders?%70arent=Nowhere")
            #expect(byEscape.status == .notFound, "an escaped parameter name is read: \(byEscape.json)")
        }
    }

    @Test("a form of 10,000 parts is refused at the cap, and 100 URL inputs are not text fields")
    func manyParts() async throws {
        try await InProcessGateway().run { client in
            let fields = FormPart.encodeText((0..<10_000).map { ("field\($0)", "x") })
            let many = try await client.send(.post, "/v1/jobs", bytes: fields.bytes, contentType: fields.contentType)
            #expect(many.status == .contentTooLarge && many.error.code == "too_many_fields", "\(many.json)")
            let urls = FormPart.encodeText((0..<101).map { ("url", "https://example.com/\($0)") })
            let tooMany = try await client.send(.post, "/v1/jobs", bytes: urls.bytes, contentType: urls.contentType)
            #expect(tooMany.status == .badRequest && tooMany.error.code == "too_many_files", "\(tooMany.json)")
            // 40 page URLs (URL inputs count with the files, not the text fields) make one merge.
            let pages = FormPart.encodeText((0..<40).map { ("url", "https://example.com/\($0)") })
            let merged = try await client.send(.post, "/v1/jobs", bytes: pages.bytes, contentType: pages.contentType)
            #expect(merged.status == .created && (merged.json["inputs"] as? [Any])?.count == 40, "\(merged.json)")
        }
    }

    @Test("query parameters are fields of every create: a bad type in the query of a JSON or multipart create is refused")
    func queryFieldsOnEveryCreate() async throws {
        try await InProcessGateway().run { client in
            let json = try await client.post("/v1/jobs?type=BOGUS", json: ["url": "https://example.com/"])
            #expect(json.status == .badRequest && json.error.code == "invalid_type", "\(json.json)")
            let form = try FormPart.encode([.file("file", path: Fixtures.pdf("one-page.pdf"))])
            let multipart = try await client.send(.post, "/v1/jobs?type=BOGUS", bytes: form.bytes, contentType: form.contentType)
            #expect(multipart.status == .badRequest && multipart.error.code == "invalid_type", "\(multipart.json)")
            let jobs = try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]
            #expect(jobs?.isEmpty == true)
        }
    }

    @Test("a raw body without a file name is named by its Content-Type, or by its type; an ebook without one is 415")
    func rawBodyWithoutName() async throws {
        try await InProcessGateway().run { client in
            let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let typed = try await client.send(.post, "/v1/jobs", bytes: pdf, contentType: "application/pdf")
            #expect(typed.status == .created && typed.json["type"] as? String == "PDF_TO_PDF", "\(typed.json)")
            #expect(typed.json["original_filename"] as? String == "document.pdf", "\(typed.json)")
            let docx = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.docx"))))
            let word = try await client.send(
                .post,
                "/v1/jobs",
                bytes: docx,
                contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document; charset=binary"
            )
            #expect(word.status == .created && word.json["original_filename"] as? String == "document.docx", "\(word.json)")
            #expect(word.json["type"] as? String == "DOC_TO_PDF", "\(word.json)")
            let bytes = try await client.send(.post, "/v1/jobs?type=PDF_TO_PDF", bytes: pdf, contentType: "application/octet-stream")
            #expect(bytes.status == .created && bytes.json["original_filename"] as? String == "document.pdf", "\(bytes.json)")
            let book = try await client.send(.post, "/v1/jobs?type=EBOOK_TO_PDF", bytes: pdf, contentType: "application/octet-stream")
            // A file whose format nobody can tell: 415 (schemathesis found a nameless form part
            // refused with 400, which the spec cannot say is wrong).
            #expect(book.status == .unsupportedMediaType && book.error.code == "filename_required", "\(book.json)")
            #expect(book.error.message?.contains("filename=") == true, "\(book.json)")
        }
    }

    @Test("a job on library documents is PDF_TO_PDF, a file is no URL_TO_PDF: a type in the query that contradicts the body is 422")
    func documentsJobWithAnotherType() async throws {
        try await InProcessGateway().run { client in
            let id = UUID().uuidString.lowercased()
            let answer = try await client.post("/v1/jobs?type=URL_TO_PDF", json: ["documents": [id]])
            #expect(answer.status == .unprocessableContent && answer.error.code == "conflicting_type", "\(answer.json)")
            let file = try await client.post("/v1/jobs?type=URL_TO_PDF", json: ["original_filename": "report.docx"])
            #expect(file.status == .unprocessableContent && file.error.code == "conflicting_type", "\(file.json)")
        }
    }

    @Test("page ranges: from 1, at most 8 digits; one that runs backwards is 422")
    func pageRanges() async throws {
        try await InProcessGateway().run { client in
            let id = UUID().uuidString.lowercased()
            for (pages, status, code) in [
                ("0", HTTPResponse.Status.badRequest, "invalid_operation"), ("05", .badRequest, "invalid_operation"),
                ("+5", .badRequest, "invalid_operation"), ("297440740460807134318", .badRequest, "invalid_operation"),
                ("5-3", .unprocessableContent, "invalid_page_range"),
            ] {
                let answer = try await client.post(
                    "/v1/documents/\(id)/operations",
                    json: ["operations": [["op": "rotate", "angle": 90, "pages": pages]]]
                )
                #expect(answer.status == status && answer.error.code == code, "pages \(pages): \(answer.json)")
            }
            let angle = try await client.post("/v1/documents/\(id)/operations", json: ["operations": [["op": "rotate", "angle": 450]]])
            #expect(angle.status == .badRequest && angle.error.message?.contains("-360 to 360") == true, "\(angle.json)")
        }
    }
}

extension FormPart {
    /// A form of text fields only, built without `FormPart` values (10,000 of them are many).
    static func encodeText(_ fields: [(String, String)]) -> (contentType: String, bytes: [UInt8]) {
        let boundary = "pdfgate-test-\(UUID().uuidString)"
        var body = ""
        for (name, value) in fields { body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        body += "--\(boundary)--\r\n"
        return ("multipart/form-data; boundary=\(boundary)", Array(body.utf8))
    }
}
