import Foundation
import GatewayLibraryModel
import GatewayWire
import Testing

@Suite("JSONOutput writes what JSONEncoder writes")
struct JSONOutputTests {
    static func document(name: String, title: String?, folderID: UUID?) -> Document {
        Document(
            id: UUID(),
            owner: "alice",
            folderID: folderID,
            folderPath: folderID == nil ? "" : "Invoices/2026",
            name: name,
            size: 123_456,
            sha256: String(repeating: "ab", count: 32),
            info: PDFInfo(
                pageCount: 7,
                title: title,
                author: "Zoë \u{1F600}",
                createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
                pdfVersion: "1.7",
                pageWidth: 595.3039370078741,
                pageHeight: 842,
                encrypted: false,
                linearized: true,
                pdfa: "PDF/A-2b"
            ),
            createdAt: Date(timeIntervalSince1970: 1_795_335_087.5),
            updatedAt: Date(timeIntervalSince1970: 1_795_335_088.125)
        )
    }

    @Test("documents, with escapes, nulls, unicode and numbers, decode to the same values")
    func sameValues() throws {
        let documents = [
            Self.document(name: "Quote \" back\\slash\ttab\nline \u{01}", title: nil, folderID: nil),
            Self.document(name: "Résumé", title: "T", folderID: UUID()),
        ]
        for document in documents {
            var json = DocumentJSON(document)
            json.downloadURL = "http://127.0.0.1:8080/v1/downloads/alice/x?sig=a/b"
            // A version where the answer carries one (one item, the change feed), none in a listing.
            json.version = document.folderID == nil ? nil : "42"
            var out = JSONOutput()
            json.write(to: &out)
            let ours = try JSONSerialization.jsonObject(with: Data(out.bytes)) as? NSDictionary
            let foundation = try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(json)) as? NSDictionary
            #expect(ours != nil && ours == foundation, "\(String(decoding: out.bytes, as: UTF8.self))")
            // openapi.yaml: `folder_id` is required and null at the root, in both writers.
            #expect(ours?["folder_id"] != nil && foundation?["folder_id"] != nil)
            #expect((ours?["folder_id"] is NSNull) == (document.folderID == nil))
        }
    }

    @Test("a folder at the root has parent_id null, not a missing key")
    func rootFolderParentIsNull() throws {
        let root = Folder(id: UUID(), owner: "alice", parentID: nil, name: "Invoices", path: "Invoices", createdAt: Date(), updatedAt: Date())
        let json = try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(FolderJSON(root))) as? [String: Any]
        #expect(json?["parent_id"] is NSNull, "\(json ?? [:])")
    }
}
