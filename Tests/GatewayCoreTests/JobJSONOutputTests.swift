import Foundation
import Testing

@testable import GatewayJobModel
@testable import GatewayWire

/// `JobJSON.write(to:)`, the one writer of a job's JSON (HTTP answers, events, webhooks, the
/// CLI): every field under its key with its value, escapes included, read back by Foundation.
@Suite("A job's JSON holds every field, as Foundation reads it back")
struct JobJSONOutputTests {
    static let created = Date(timeIntervalSince1970: 1_795_335_087.5)

    static func job() -> Job {
        Job(
            owner: "alice",
            spec: JobSpec(type: .docToPDF, originalFilename: "Résumé \"final\".docx"),
            state: JobStateMachine(needsUpload: true, deadline: created.addingTimeInterval(120), maxAttempts: 3),
            createdAt: created,
            updatedAt: created.addingTimeInterval(1.25)
        )
    }

    /// Every optional field set, so that a field `write(to:)` forgets fails the test.
    static var everything: JobJSON {
        var json = JobJSON(job())
        json.status = .failed
        json.phase = .inspecting
        json.url = "https://example.com/a/b?c=d"
        json.folder = "Invoices/2026"
        json.trace = "trace \"42\""
        json.name = "Quote \" back\\slash\ttab\nline \u{01} \u{1F600}"
        json.options = ConversionOptionsTests.everything
        json.upload = .init(method: "PUT", url: "http://127.0.0.1:8080/v1/uploads/x?sig=a/b", expiresAt: created, maxBytes: 104_857_600)
        json.downloadURL = "http://127.0.0.1:8080/v1/downloads/alice/x?sig=c"
        json.documentID = UUID().lowercased
        var document = DocumentJSON(JSONOutputTests.document(name: "Report", title: "T", folderID: UUID()))
        document.downloadURL = "http://127.0.0.1:8080/v1/downloads/alice/y"
        json.document = document
        json.documents = [document, DocumentJSON(JSONOutputTests.document(name: "Part 2", title: nil, folderID: nil))]
        json.inputDocuments = [UUID().lowercased, UUID().lowercased]
        json.inputs = [.file("intro.docx"), .url("https://example.com/")]
        json.operations = [.rotate(angle: 90, pages: try? PageSelection("1-2")), .flatten, .pdfa(.a2b)]
        json.replaceOriginal = true
        json.inputSize = 9_876_543_210
        json.error = "conversion_failed"
        json.errorMessage = "LibreOffice said: \"no\"\r\n"
        return json
    }

    /// The names of the fields that are nil.
    static func absentFields(_ json: JobJSON) -> [String] {
        Mirror(reflecting: json).children.compactMap { child in
            let value = Mirror(reflecting: child.value)
            return value.displayStyle == .optional && value.children.isEmpty ? child.label : nil
        }
    }

    static func decoded(_ bytes: [UInt8]) throws -> NSDictionary? {
        try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
    }

    /// A nested value as `JSONEncoder` writes it, read back for comparison.
    static func encoded(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(value), options: .fragmentsAllowed)
    }

    @Test("with every field set, each is written under its key with its value")
    func everyField() throws {
        let json = Self.everything
        #expect(Self.absentFields(json).isEmpty, "set these in the test too: \(Self.absentFields(json))")
        let bytes = try json.json()
        let written = try #require(try Self.decoded(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        let keys = [
            "job_id", "type", "status", "phase", "created_at", "updated_at", "attempts", "url", "original_filename", "trace", "folder", "name",
            "options", "upload", "download_url", "document_id", "document", "documents", "input_documents", "inputs", "operations",
            "replace_original", "input_size", "error", "error_message",
        ]
        #expect(Set(written.allKeys.compactMap { $0 as? String }) == Set(keys))
        let strings: [String: String?] = [
            "job_id": json.jobID, "type": json.type.rawValue, "status": json.status.rawValue, "phase": json.phase?.rawValue,
            "created_at": WireJSON.iso8601(json.createdAt), "updated_at": WireJSON.iso8601(json.updatedAt), "url": json.url,
            "original_filename": json.originalFilename, "trace": json.trace, "folder": json.folder, "name": json.name,
            "download_url": json.downloadURL, "document_id": json.documentID, "error": json.error, "error_message": json.errorMessage,
        ]
        for (key, value) in strings {
            #expect(written[key] as? String == value, "\(key): the escapes survive the trip")
        }
        #expect(written["attempts"] as? Int == json.attempts && written["input_size"] as? Int64 == json.inputSize)
        #expect(written["replace_original"] as? Bool == true)
        #expect(written["input_documents"] as? [String] == json.inputDocuments)
        let upload = written["upload"] as? NSDictionary
        #expect(upload?["url"] as? String == json.upload?.url && upload?["max_bytes"] as? Int64 == json.upload?.maxBytes)
        #expect(upload?["expires_at"] as? String == WireJSON.iso8601(Self.created) && upload?["method"] as? String == "PUT")
        #expect(written["options"] as? NSDictionary == (try Self.encoded(json.options)) as? NSDictionary)
        #expect(written["inputs"] as? NSArray == (try Self.encoded(json.inputs)) as? NSArray)
        #expect(written["operations"] as? NSArray == (try Self.encoded(json.operations)) as? NSArray)
        #expect((written["document"] as? NSDictionary)?["name"] as? String == "Report")
        #expect((written["documents"] as? [NSDictionary])?.compactMap { $0["name"] as? String } == ["Report", "Part 2"])
    }

    @Test("a poll's answer has what its status has, and phase always", arguments: JobStatus.allCases)
    func polls(status: JobStatus) throws {
        var json = JobJSON(Self.job())
        json.status = status
        json.phase = status == .processing ? .converting : nil
        switch status {
        case .created: json.upload = .init(method: "PUT", url: "http://h/v1/uploads/x", expiresAt: Self.created, maxBytes: 5)
        case .failed: (json.error, json.errorMessage) = ("timed_out", "the job did not finish within 120 s")
        default: break
        }
        let written = try #require(try Self.decoded(json.json()))
        #expect(written["status"] as? String == status.rawValue)
        #expect(written["phase"] != nil, "phase is always present (null when not processing)")
        #expect((written["phase"] as? String) == (status == .processing ? "converting" : nil))
        #expect((written["upload"] != nil) == (status == .created) && (written["error"] != nil) == (status == .failed))
        #expect(written["url"] == nil && written["document"] == nil, "absent fields are left out")
    }
}
