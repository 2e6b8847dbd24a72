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

    @Test("integers, whole doubles and dates are written as JSONEncoder writes them")
    func numbersAndDates() throws {
        let integers: [Int64] = [0, 7, -7, 10, 1_000_000, -9_223_372_036_854_775_807, .min, .max]
        let doubles: [Double] = [612, -3, 0, 1e14, 595.3039370078741, 0.5]
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: 1_795_335_088.125)]
        var out = JSONOutput()
        out.beginArray()
        for value in integers { out.int(value) }
        for value in doubles { out.double(value) }
        for value in dates { out.date(value) }
        out.endArray()
        var expected = (integers.map(String.init) + doubles.map { $0 == $0.rounded() ? String(Int64($0)) : String($0) })
        expected += dates.map { "\"\(WireJSON.iso8601($0))\"" }
        #expect(String(decoding: out.bytes, as: UTF8.self) == "[" + expected.joined(separator: ",") + "]")
        #expect(WireJSON.iso8601(dates[1]) == "1969-12-31T23:59:58.500Z")
    }

    @Test("a page of the change feed, every kind of entry, decodes to the same values from both writers")
    func changePageSameValues() throws {
        let folder = Folder(id: UUID(), owner: "alice", parentID: nil, name: "Invoices", path: "Invoices", createdAt: Date(), updatedAt: Date())
        let changes: [LibraryChange] = [
            .document(Self.document(name: "Résumé \"1\"", title: "T", folderID: folder.id), ItemVersion(sequence: 41)),
            .folder(folder, ItemVersion(sequence: 42)),
            .deletedDocument(UUID()),
            .deletedFolder(UUID()),
        ]
        let page = ChangePageJSON(changes: changes.map(ChangeJSON.init), token: "t0k", more: true, next: "http://127.0.0.1/v1/changes?since=t0k")
        var out = JSONOutput()
        try page.write(to: &out)
        let ours = try JSONSerialization.jsonObject(with: Data(out.bytes)) as? NSDictionary
        let foundation = try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(page)) as? NSDictionary
        #expect(ours != nil && ours == foundation, "\(String(decoding: out.bytes, as: UTF8.self))")
        let entries = ours?["changes"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["kind"] as? String } == ["document", "folder", "document", "folder"])
        #expect(entries.map { $0["deleted"] as? Bool } == [false, false, true, true])
        #expect((entries.first?["document"] as? [String: Any])?["version"] as? String == "41")
        #expect(entries.first?["id"] as? String == changes.first.flatMap { if case .document(let d, _) = $0 { d.id.lowercased } else { nil } })
    }

    @Test("a folder at the root has parent_id null, not a missing key")
    func rootFolderParentIsNull() throws {
        let root = Folder(id: UUID(), owner: "alice", parentID: nil, name: "Invoices", path: "Invoices", createdAt: Date(), updatedAt: Date())
        let json = try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(FolderJSON(root))) as? [String: Any]
        #expect(json?["parent_id"] is NSNull, "\(json ?? [:])")
    }
}
