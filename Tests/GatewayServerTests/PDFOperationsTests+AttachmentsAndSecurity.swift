import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayTestSupport
import Testing

/// PDF operations on library documents: attached files, a Factur-X invoice, metadata tags and encryption.
extension PDFOperationsTests {
    @Test func attachedFilesComeOutByteForByteUnderTheirNames() async throws {
        let (server, client, _, one) = try await Self.library()
        try await using(server) { server in
            let invoice = Data("<?xml version=\"1.0\"?><Invoice><Total>42.00</Total></Invoice>".utf8)
            let notes = Data((0..<5000).map { UInt8($0 % 251) })
            let created = try await client.post(
                "/v1/documents/\(one)/operations",
                json: [
                    "operations": [
                        ["op": "pdfa", "part": "3b"],
                        [
                            "op": "attach",
                            "files": [
                                ["name": "invoice.xml", "data": invoice.base64EncodedString()],
                                ["name": "notes é.bin", "data": notes.base64EncodedString()],
                            ],
                        ],
                    ]
                ]
            )
            #expect(created.status == 201, "\(created.text)")
            let job = try await Self.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let files = ((job.json["operations"] as? [[String: Any]])?.last?["files"] as? [[String: Any]]) ?? []
            #expect(
                files.map { $0["name"] as? String } == ["invoice.xml", "notes é.bin"] && files.first?["bytes"] as? Int == invoice.count,
                "\(job.text)"
            )
            #expect(!job.text.contains(invoice.base64EncodedString()), "the bytes stay out of the answer")
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            let out = TemporaryDirectory("attachments")
            let saved = try await run(try which("pdfdetach"), ["-saveall", "-o", out.path, path])
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.file("invoice.xml"))) == invoice)
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.file("notes é.bin"))) == notes)
            #expect(try await Self.pdfinfo(path).contains("PDF version"), "Poppler opens the result")

            // PDF/A-2b allows no attachments; before pdfa they would be dropped; a name twice is ambiguous.
            let file = ["name": "a.txt", "data": Data("a".utf8).base64EncodedString()]
            for (operations, status, code) in [
                ([["op": "pdfa", "part": "2b"], ["op": "attach", "files": [file]]], 422, "contradictory_operations"),
                ([["op": "attach", "files": [file]], ["op": "pdfa", "part": "3b"]], 422, "contradictory_operations"),
                ([["op": "attach", "files": [file, file]]], 422, "duplicate_name"),
                ([["op": "attach", "files": [["name": "../etc/passwd", "data": "YQ=="]]]], 400, "invalid_operation"),
                ([["op": "attach", "files": [["name": "a.txt"]]]], 400, "invalid_operation"),
                ([["op": "attach", "files": [["name": "a.txt", "sha256": String(repeating: "0", count: 64)]]]], 422, "attachment_data_missing"),
            ] as [([[String: Any]], Int, String)] {
                let refused = try await client.post("/v1/documents/\(one)/operations", json: ["operations": operations])
                #expect(refused.status == status && refused.string("error") == code, "\(operations): \(refused.text)")
            }
        }
    }

    /// A Factur-X invoice of a library document: PDF/A-3b first, then the XML as its
    /// `Alternative` and the `fx` declaration, read back with qpdf and Poppler.
    @Test func aFacturXInvoiceFollowsPDFA3() async throws {
        let (server, client, _, one) = try await Self.library()
        try await using(server) { server in
            let xml = Data(#"<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:x"><ID>42</ID></rsm:CrossIndustryInvoice>"#.utf8)
            let invoice: [String: Any] = [
                "op": "facturx", "conformance_level": "EXTENDED", "document_type": "ORDER_CHANGE", "xml": xml.base64EncodedString(),
            ]
            let alone = try await client.post("/v1/documents/\(one)/operations", json: ["operations": [invoice]])
            #expect(alone.status == 422 && alone.string("error") == "contradictory_operations", "\(alone.text)")
            #expect(alone.string("error_message")?.contains(#"{"op": "pdfa", "part": "3b"}"#) == true, "the refusal says what to add")
            let broken = try await client.post(
                "/v1/documents/\(one)/operations",
                json: [
                    "operations": [
                        ["op": "pdfa", "part": "3b"], ["op": "facturx", "conformance_level": "BASIC", "xml": Data("<a>".utf8).base64EncodedString()],
                    ]
                ]
            )
            #expect(broken.status == 422 && broken.string("error") == "invalid_facturx_xml", "\(broken.text)")
            let hashOnly = try await client.post(
                "/v1/documents/\(one)/operations",
                json: [
                    "operations": [
                        ["op": "pdfa", "part": "3b"],
                        ["op": "facturx", "conformance_level": "BASIC", "xml_sha256": String(repeating: "0", count: 64)],
                    ]
                ]
            )
            #expect(hashOnly.status == 422 && hashOnly.string("error") == "attachment_data_missing", "only the XML itself will do: \(hashOnly.text)")
            let created = try await client.post("/v1/documents/\(one)/operations", json: ["operations": [["op": "pdfa", "part": "3b"], invoice]])
            #expect(created.status == 201, "\(created.text)")
            let job = try await Self.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let described = (job.json["operations"] as? [[String: Any]])?.last
            #expect(described?["xml_sha256"] as? String == JobSecrets.sha256(xml) && described?["xml"] == nil, "\(job.text)")
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            let out = TemporaryDirectory("facturx")
            _ = try await run(try which("pdfdetach"), ["-saveall", "-o", out.path, path])
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.file("factur-x.xml"))) == xml)
            let attachments = try await run("/usr/bin/qpdf", ["--json=2", "--json-key=attachments", path]).stdout
            let filespec = attachments.firstMatch(of: /"filespec": "(\d+ 0 R)"/).map { String($0.1) } ?? ""
            let object = try await run("/usr/bin/qpdf", ["--show-object=\(filespec.split(separator: " ").first ?? "0")", path]).stdout
            #expect(object.contains("/AFRelationship /Alternative"), "\(object)")
            let xmp = try await run("/usr/bin/exiftool", ["-b", "-XMP", path]).stdout
            #expect(
                xmp.contains("<fx:DocumentType>ORDER_CHANGE</fx:DocumentType>")
                    && xmp.contains("<fx:ConformanceLevel>EXTENDED</fx:ConformanceLevel>"),
                "\(xmp)"
            )
        }
    }

    /// Tags beyond the document information go through ExifTool: written, read back by it; one
    /// that would act on the file refused at create, one it does not know failing the job.
    @Test func metadataTagsAreWrittenByExifTool() async throws {
        let (server, client, _, one) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.operations(
                client,
                on: one,
                [
                    "operations": [
                        [
                            "op": "metadata", "title": "Tagged",
                            "tags": ["Copyright": "© The board", "Marked": true, "CreateDate": "2006-09-18T16:27:50-04:00"],
                        ]
                    ]
                ]
            )
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            let read = try await run("/usr/bin/exiftool", ["-j", "-Copyright", "-Marked", "-CreateDate", "-Title", path]).stdout
            let tags = ((try? JSONSerialization.jsonObject(with: Data(read.utf8))) as? [[String: Any]])?.first ?? [:]
            #expect(tags["Copyright"] as? String == "© The board" && tags["Marked"] as? Bool == true, "\(read)")
            #expect(tags["CreateDate"] as? String == "2006:09:18 16:27:50-04:00" && tags["Title"] as? String == "Tagged", "\(read)")

            let moved = try await client.post(
                "/v1/documents/\(one)/operations",
                json: ["operations": [["op": "metadata", "tags": ["FileName": "elsewhere.pdf"]]]]
            )
            #expect(moved.status == 422 && moved.string("error") == "metadata_tag_refused", "\(moved.text)")
            let unknown = try await Self.operations(client, on: one, ["operations": [["op": "metadata", "tags": ["NoSuchTagAnywhere": "x"]]]])
            #expect(unknown.string("status") == "FAILED", "\(unknown.text)")
            #expect(
                (unknown.json["error"] as? [String: Any])?["code"] as? String == "metadata_not_written"
                    || unknown.text.contains("metadata_not_written"),
                "\(unknown.text)"
            )
        }
    }

    @Test func encryptLocksTheResultAndNeverShowsThePassword() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let created = try await client.post(
                "/v1/documents/\(twelve)/operations",
                json: ["name": "Locked", "operations": [["op": "flatten"], ["op": "encrypt", "user_password": "s3cret-user", "allow": ["print"]]]]
            )
            #expect(!created.text.contains("s3cret-user"))
            let job = try await Self.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            #expect(!job.text.contains("s3cret-user"))
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            #expect((job.json["document"] as? [String: Any]).flatMap { $0["metadata"] as? [String: Any] }?["encrypted"] as? Bool == true)
            let opened = try await Self.pdfinfo(path, ["-upw", "s3cret-user"])
            #expect(opened.contains("Encrypted:       yes") && opened.contains("Pages:           12"), "\(opened)")
            let refused = try await run(try which("pdfinfo"), [path])
            #expect(refused.status != 0)
            #expect(!server.log.contains("s3cret-user"))

            // Merging it back needs its password: refused at create without it, done with it.
            let locked = try #require(job.string("document_id"))
            let without = try await client.post("/v1/documents/merge", json: ["documents": [locked, twelve]])
            #expect(without.status == 422 && without.string("error") == "password_required", "\(without.text)")
            // A wrong one is refused at create: qpdf tries it before the job exists.
            let wrong = try await client.post("/v1/documents/merge", json: ["documents": [locked, twelve], "password": "nope"])
            #expect(wrong.status == 422 && wrong.string("error") == "wrong_password" && !wrong.text.contains("nope"), "\(wrong.text)")
            let right = try await Self.finished(
                client,
                try await client.post("/v1/documents/merge", json: ["documents": [locked, twelve], "passwords": [locked: "s3cret-user"]])
            )
            #expect(right.string("status") == "SUCCEEDED", "\(right.text)")
            #expect(try await pdfinfoPageCount(try Self.file(server, right.json["document"] as? [String: Any])) == 24)
        }
    }
}
