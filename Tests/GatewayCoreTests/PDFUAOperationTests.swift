import Foundation
import GatewayJobModel
import Testing

/// `pdfua`'s wire form and order rules, without tools.
@Suite("PDF operations: pdfua")
struct PDFUAOperationTests {
    static func decode(_ json: String) throws -> [PDFOperation] {
        try JSONDecoder().decode([PDFOperation].self, from: Data(json.utf8))
    }

    @Test(arguments: [
        (#"[{"op":"pdfua"}]"#, PDFOperation.pdfua(nil)),
        (#"[{"op":"pdfua","part":"2b"}]"#, .pdfua(.a2b)),
        (#"[{"op":"pdfua","part":"3B"}]"#, .pdfua(.a3b)),
        (#"[{"op":"pdfua","part":"1b"}]"#, .pdfua(.a1b)),
    ])
    func readsAndWritesBackTheSame(json: String, expected: PDFOperation) throws {
        let parsed = try Self.decode(json)
        #expect(parsed == [expected])
        let written = try JSONEncoder().encode(parsed)
        #expect(try JSONDecoder().decode([PDFOperation].self, from: written) == parsed)
        // No part is no field at all, not a null.
        if expected == .pdfua(nil) { #expect(String(decoding: written, as: UTF8.self) == #"[{"op":"pdfua"}]"#) }
    }

    @Test(arguments: [
        (#"[{"op":"pdfua","part":"2u"}]"#, "part '2u' is not one of 1b, 2b, 3b"),
        (#"[{"op":"pdfua","part":2}]"#, "part must be a string"),
        (#"[{"op":"pdfua","level":"1"}]"#, "level is not a field of pdfua; it takes part"),
    ])
    func aBadFieldIsRefusedByName(json: String, words: String) throws {
        let error = try #require(throws: OperationError.self) { try Self.decode(json) }
        #expect(error.code == "invalid_operation" && error.message.contains(words), "\(error.message)")
        let unknown = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"pdfuaa"}]"#) }
        #expect(unknown.message.contains("pdfua"), "the refusal lists pdfua among the operations: \(unknown.message)")
    }

    @Test(arguments: [
        (#"[{"op":"pdfua"},{"op":"rotate","angle":90}]"#, "pdfua must come after rotate"),
        (#"[{"op":"pdfua"},{"op":"pdfua"}]"#, "pdfua twice"),
        (#"[{"op":"pdfa"},{"op":"pdfua"}]"#, #"give pdfua the part, as {"op": "pdfua", "part": "2b"}"#),
        (#"[{"op":"pdfua","part":"2b"},{"op":"encrypt","user_password":"a"}]"#, "PDF/A-2b forbids encryption"),
        (#"[{"op":"pdfua"},{"op":"encrypt","user_password":"a","allow":["print"]}]"#, "keep \"accessibility\" in encrypt's allow"),
        (#"[{"op":"attach","files":[{"name":"a.txt","data":"YQ=="}]},{"op":"pdfua","part":"3b"}]"#, "attach must come after pdfua"),
        (#"[{"op":"pdfua","part":"2b"},{"op":"attach","files":[{"name":"a.txt","data":"YQ=="}]}]"#, "only PDF/A-3b does"),
    ])
    func contradictoryOrdersAreRefusedWithWhatToDo(json: String, words: String) throws {
        let error = try #require(throws: OperationError.self) { try Self.decode(json).checkOrder() }
        #expect(error.code == "contradictory_operations" && error.message.contains(words), "\(error.message)")
    }

    @Test func whatMayFollowItPasses() throws {
        let xml = Data("<Invoice/>".utf8).base64EncodedString()
        for json in [
            #"[{"op":"rotate","angle":90},{"op":"metadata","title":"T"},{"op":"pdfua"},{"op":"split","every":2}]"#,
            #"[{"op":"pdfua"},{"op":"encrypt","user_password":"a"}]"#,
            #"[{"op":"pdfua"},{"op":"metadata","title":"T"}]"#,
            #"[{"op":"pdfua","part":"3b"},{"op":"attach","files":[{"name":"a.txt","data":"YQ=="}]}]"#,
            // Its part counts as pdfa's: a Factur-X invoice builds on PDF/A-3b.
            #"[{"op":"pdfua","part":"3b"},{"op":"facturx","conformance_level":"BASIC","xml":"\#(xml)"}]"#,
        ] {
            try Self.decode(json).checkOrder()
        }
        #expect(try Self.decode(#"[{"op":"pdfua","part":"3b"}]"#).declaredPDFAPart == .a3b)
        #expect(try Self.decode(#"[{"op":"pdfua"}]"#).declaredPDFAPart == nil)
    }
}
