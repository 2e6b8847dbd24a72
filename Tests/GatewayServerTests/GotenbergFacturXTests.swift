import Foundation
import GatewayJobModel
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// Gotenberg's Factur-X fields and `embedsMetadata`: PDF/A-3's associated files, read back
/// from the answer's objects with qpdf (its JSON) and Poppler (`pdfdetach`).
@Suite("Gotenberg's Factur-X and embeds metadata")
struct GotenbergFacturXTests {
    let scratch = TemporaryDirectory("gotenberg-facturx")

    /// What a reader of the answer's PDF finds: each attachment's relationship and media type,
    /// what the catalog's `/AF` lists, and the XMP packet.
    struct Associated {
        var relationships: [String: String] = [:]
        var mediaTypes: [String: String] = [:]
        var listed: Set<String> = []
        var xmp = ""
    }

    func associated(_ response: TestResponse) async throws -> Associated {
        let path = scratch.file(UUID().uuidString + ".pdf")
        try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: path))
        let json = try await run("/usr/bin/qpdf", ["--json=2", "--json-stream-data=inline", path]).stdout
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        let sections = root["qpdf"] as? [[String: Any]] ?? []
        let objects = sections.count == 2 ? sections[1] : [:]
        func value(_ reference: String) -> [String: Any] {
            let entry = objects["obj:" + reference] as? [String: Any]
            return (entry?["value"] ?? (entry?["stream"] as? [String: Any])?["dict"]) as? [String: Any] ?? [:]
        }
        var found = Associated()
        let attachments = root["attachments"] as? [String: [String: Any]] ?? [:]
        var filespecs: [String: String] = [:]
        for (name, attachment) in attachments {
            guard let reference = attachment["filespec"] as? String else { continue }
            filespecs[reference] = name
            found.relationships[name] = value(reference)["/AFRelationship"] as? String
            let streams = attachment["streams"] as? [String: [String: Any]]
            found.mediaTypes[name] = streams?["/F"]?["mimetype"] as? String
        }
        let trailer = (objects["trailer"] as? [String: Any])?["value"] as? [String: Any]
        let catalog = value(trailer?["/Root"] as? String ?? "")
        found.listed = Set((catalog["/AF"] as? [String] ?? []).compactMap { filespecs[$0] })
        if let metadata = catalog["/Metadata"] as? String,
            let data = ((objects["obj:" + metadata] as? [String: Any])?["stream"] as? [String: Any])?["data"] as? String
        {
            found.xmp = String(decoding: Data(base64Encoded: data) ?? Data(), as: UTF8.self)
        }
        return found
    }

    func invoice() throws -> String {
        let path = scratch.file("invoice-\(UUID().uuidString.prefix(4)).xml")
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">
              <rsm:ExchangedDocument><ID>INV-2026-042</ID></rsm:ExchangedDocument>
            </rsm:CrossIndustryInvoice>
            """
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("an office file becomes a Factur-X PDF/A-3b: factur-x.xml attached as its Alternative, listed in /AF, declared in the XMP")
    func officeInvoice() async throws {
        let gateway = try await InProcessGateway()
        let xml = try invoice()
        try await gateway.run(converting: true) { client in
            let answer = try await GotenbergAPITests.post(
                client,
                "/forms/libreoffice/convert",
                [
                    .file("files", path: Fixtures.office("sample.docx")), .file("facturxXml", path: xml),
                    .text("facturxConformanceLevel", "EN 16931"),
                ]
            )
            #expect(answer.status == .ok && answer.headers[.contentType] == "application/pdf", "\(String(buffer: answer.body))")
            let found = try await associated(answer)
            #expect(found.relationships == ["factur-x.xml": "/Alternative"], "\(found.relationships)")
            #expect(found.mediaTypes["factur-x.xml"] == "text/xml")
            #expect(found.listed == ["factur-x.xml"], "the catalog's /AF lists it")
            #expect(found.xmp.contains("<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>"), "\(found.xmp)")
            #expect(found.xmp.contains("<fx:DocumentType>INVOICE</fx:DocumentType>") && found.xmp.contains("<fx:Version>1.0</fx:Version>"))
            #expect(found.xmp.contains("<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>"))
            #expect(found.xmp.contains("<pdfaSchema:namespaceURI>\(FacturX.namespace)</pdfaSchema:namespaceURI>"), "the schema is declared for PDF/A")
            #expect(found.xmp.firstMatch(of: /pdfaid:part[^0-9]{1,3}3/) != nil, "PDF/A-3 by default: \(found.xmp)")
            // The XML inside is the one sent, byte for byte.
            let pdf = scratch.file("office-invoice.pdf")
            try Data(answer.body.readableBytesView).write(to: URL(fileURLWithPath: pdf))
            let out = TemporaryDirectory("facturx-detach")
            _ = try await run("/usr/bin/pdfdetach", ["-saveall", "-o", out.path, pdf])
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.file("factur-x.xml"))) == Data(contentsOf: URL(fileURLWithPath: xml)))
        }
    }

    @Test("/forms/pdfengines/factur-x turns an existing PDF into an invoice of the type asked; half a request is Gotenberg's 400")
    func standaloneRoute() async throws {
        let gateway = try await InProcessGateway()
        let xml = try invoice()
        try await gateway.run(converting: true) { client in
            let order = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/factur-x",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("facturxXml", path: xml),
                    .text("facturxConformanceLevel", "BASIC"), .text("facturxDocumentType", "ORDER"),
                ]
            )
            #expect(order.status == .ok, "\(String(buffer: order.body))")
            let found = try await associated(order)
            #expect(found.relationships["factur-x.xml"] == "/Alternative" && found.listed.contains("factur-x.xml"))
            #expect(
                found.xmp.contains("<fx:DocumentType>ORDER</fx:DocumentType>")
                    && found.xmp.contains("<fx:ConformanceLevel>BASIC</fx:ConformanceLevel>")
            )

            let half = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/factur-x",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("facturxConformanceLevel", "EN 16931")]
            )
            #expect(half.status == .badRequest && String(buffer: half.body).contains("'facturxXml' file is required"), "\(String(buffer: half.body))")
            let wrongFormat = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("facturxXml", path: xml),
                    .text("facturxConformanceLevel", "EN 16931"), .text("pdfa", "PDF/A-2b"),
                ]
            )
            #expect(
                String(buffer: wrongFormat.body)
                    == "Invalid form data: Factur-X requires a PDF/A-3 variant (PDF/A-3a, PDF/A-3b, or PDF/A-3u), got 'PDF/A-2b'"
            )
            let level = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/factur-x",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .file("facturxXml", path: xml), .text("facturxConformanceLevel", "GOLD")]
            )
            #expect(String(buffer: level.body).contains("unsupported conformance level 'GOLD'"), "\(String(buffer: level.body))")
            let notXML = scratch.file("not.xml")
            try Data("<Invoice><unclosed>".utf8).write(to: URL(fileURLWithPath: notXML))
            let broken = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/factur-x",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .file("facturxXml", path: notXML), .text("facturxConformanceLevel", "BASIC")]
            )
            #expect(broken.status == .badRequest && String(buffer: broken.body).contains("not well-formed XML"), "\(String(buffer: broken.body))")
        }
    }

    @Test("embedsMetadata gives embedded files their media type and relationship, listed in /AF; a relationship PDF lacks is refused")
    func embedsMetadata() async throws {
        let gateway = try await InProcessGateway()
        let data = try invoice()
        let other = scratch.file("embed_2.xml")
        try Data("<b/>".utf8).write(to: URL(fileURLWithPath: other))
        try await gateway.run(converting: true) { client in
            let name = (data as NSString).lastPathComponent
            let answer = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/embed",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("embeds", path: data), .file("embeds", path: other),
                    .text(
                        "embedsMetadata",
                        #"{"\#(name)":{"mimeType":"application/xml","relationship":"Data"},"embed_2.xml":{"relationship":"Alternative"}}"#
                    ),
                ]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let found = try await associated(answer)
            #expect(found.relationships == [name: "/Data", "embed_2.xml": "/Alternative"], "\(found.relationships)")
            #expect(found.mediaTypes[name] == "application/xml" && found.mediaTypes["embed_2.xml"] == "application/xml")
            #expect(found.listed == [name, "embed_2.xml"])
            let refused = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/embed",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("embeds", path: other),
                    .text("embedsMetadata", #"{"embed_2.xml":{"relationship":"Sibling"}}"#),
                ]
            )
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("not one of Source, Data, Alternative"))
        }
    }
}
