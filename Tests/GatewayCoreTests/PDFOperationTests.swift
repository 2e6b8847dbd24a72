import Foundation
import GatewayCore
import Testing

/// The wire form and the rules of `PDFOperation`, `PageSelection` and split parts, without tools.
@Suite("PDF operations: wire form and rules")
struct PDFOperationTests {
    static func decode(_ json: String) throws -> [PDFOperation] {
        try JSONDecoder().decode([PDFOperation].self, from: Data(json.utf8))
    }

    @Test func pageSelectionsReadTheUsualFormsAndRefuseTheRest() throws {
        #expect(try PageSelection("1-3,5,8-").pages(of: 9) == [1, 2, 3, 5, 8, 9])
        #expect(try PageSelection("2").qpdfRange == "2")
        #expect(try PageSelection("4-").qpdfRange == "4-z")
        for bad in ["", "0", "3-1", "a", "1,,2", "-2"] {
            #expect(throws: OperationError.self, "'\(bad)'") { try PageSelection(bad) }
        }
        let error = try #require(throws: OperationError.self) { try PageSelection("2-14").pages(of: 12) }
        #expect(error.code == "page_range_out_of_bounds" && error.message.contains("12 pages"))
    }

    @Test func operationsAreStrictAndNameWhatIsWrong() throws {
        let parsed = try Self.decode(#"[{"op":"rotate","angle":-90,"pages":"1"},{"op":"pdfa"},{"op":"optimize","images":"keep"}]"#)
        #expect(parsed == [.rotate(angle: -90, pages: try PageSelection("1")), .pdfa(.a2b), .optimize(.init(images: .keep, linearize: true))])
        let unknownField = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"flatten","pages":"1"}]"#) }
        #expect(unknownField.message.contains("pages") && unknownField.message.contains("takes none"))
        let unknownOp = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"explode"}]"#) }
        #expect(unknownOp.message.contains("split, rotate"))
        let mark = try Self.decode(#"[{"op":"watermark","text":"DRAFT","pages":"1-2"}]"#)
        #expect(mark == [.watermark(.init(text: "DRAFT", pages: try PageSelection("1-2")))])
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"watermark","text":"x","opacity":2}]"#) }
        let badDate = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"metadata","creation_date":"yesterday"}]"#) }
        #expect(badDate.message.contains("ISO 8601"))
    }

    @Test func passwordsAreReadButNeverWritten() throws {
        let parsed = try Self.decode(#"[{"op":"encrypt","user_password":"u","owner_password":"o","allow":["print"]}]"#)
        guard case .encrypt(let encryption) = parsed.first else {
            Issue.record("not encrypt: \(parsed)")
            return
        }
        #expect(encryption.userPassword == "u" && encryption.allow == [.print])
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(!written.contains("\"u\"") && !written.contains("\"o\"") && written.contains("print"))
    }

    @Test func orderRulesKeepEncryptLastAndPDFAAfterChanges() throws {
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"encrypt","user_password":"a"},{"op":"flatten"}]"#).checkOrder() }
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"pdfa"},{"op":"rotate","angle":90}]"#).checkOrder() }
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"split","every":1},{"op":"split","every":2}]"#).checkOrder() }
        try Self.decode(#"[{"op":"rotate","angle":90},{"op":"pdfa"},{"op":"split","every":2}]"#).checkOrder()
        let (before, encrypt) = try Self.decode(#"[{"op":"flatten"},{"op":"encrypt","owner_password":"o"}]"#).splittingOffEncryption
        #expect(before == [.flatten] && encrypt?.name == "encrypt")
    }

    @Test func splitPartsHaveDistinctStableIDsAndTheStateRemembersHowMany() throws {
        let job = UUID()
        #expect(JobEngine.documentID(for: job, part: 0) == JobEngine.documentID(for: job))
        let ids = (0..<PDFOperation.maxParts).map { JobEngine.documentID(for: job, part: $0) }
        #expect(Set(ids).count == ids.count && !ids.contains(job))
        var state = JobStateMachine(needsUpload: false, deadline: Date().addingTimeInterval(60))
        var random = SystemRandomNumberGenerator()
        _ = try state.handle(.started, now: Date(), random: &random)
        _ = try state.handle(.filed(ids[0], parts: 3), now: Date(), random: &random)
        let stored = try JSONDecoder().decode(JobStateMachine.self, from: JSONEncoder().encode(state))
        #expect(stored.parts == 3 && stored.documentID == ids[0])
    }
}
