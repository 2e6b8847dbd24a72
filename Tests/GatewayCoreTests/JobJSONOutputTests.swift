import Foundation
import Testing

@testable import GatewayCore

/// `JobJSON.write(to:)` (every HTTP answer with a job) against `JobJSON.encode(to:)` (the CLI):
/// the same keys and values, whatever the job holds. (Not the same bytes: Foundation's encoder
/// on Linux orders keys by hash; ours keeps the declared order.)
@Suite("A job written by hand is the job JSONEncoder writes")
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

    @Test("with every field set, both writers give the same object")
    func everyField() throws {
        let json = Self.everything
        #expect(Self.absentFields(json).isEmpty, "set these in the test too: \(Self.absentFields(json))")
        let bytes = try json.json()
        let ours = try Self.decoded(bytes)
        let foundation = try Self.decoded(Array(WireJSON.encoder().encode(json)))
        #expect(ours != nil && ours == foundation, "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("a poll's answer is the same object, whatever the status", arguments: JobStatus.allCases)
    func polls(status: JobStatus) throws {
        var json = JobJSON(Self.job())
        json.status = status
        json.phase = status == .processing ? .converting : nil
        switch status {
        case .created: json.upload = .init(method: "PUT", url: "http://h/v1/uploads/x", expiresAt: Self.created, maxBytes: 5)
        case .failed: (json.error, json.errorMessage) = ("timed_out", "the job did not finish within 120 s")
        default: break
        }
        let ours = try Self.decoded(json.json())
        let foundation = try Self.decoded(Array(WireJSON.encoder().encode(json)))
        #expect(ours != nil && ours == foundation)
        #expect(ours?["phase"] != nil, "phase is always present (null when not processing)")
    }
}
