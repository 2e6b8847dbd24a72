import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

/// `ocr` on the wire, its language codes and order rules, and the text kept beside its PDF.
@Suite("PDF operations: ocr")
struct OCROperationTests {
    static func decode(_ json: String) throws -> [PDFOperation] {
        try JSONDecoder().decode([PDFOperation].self, from: Data(json.utf8))
    }

    @Test func ocrReadsWithDefaultsAndRoundTrips() throws {
        #expect(try Self.decode(#"[{"op":"ocr"}]"#) == [.ocr(.init(languages: ["eng"], force: false))])
        let parsed = try Self.decode(#"[{"op":"ocr","languages":["eng","deu","chi_sim"],"force":true}]"#)
        #expect(parsed == [.ocr(.init(languages: ["eng", "deu", "chi_sim"], force: true))])
        let written = try JSONEncoder().encode(parsed)
        #expect(try JSONDecoder().decode([PDFOperation].self, from: written) == parsed)
        #expect(PDFOperation.OCR(languages: ["eng", "deu"]).tesseractLanguages == "eng+deu")
        let unknown = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"ocr","language":"eng"}]"#) }
        #expect(unknown.code == "invalid_operation" && unknown.message.contains("languages, force"), "\(unknown.message)")
    }

    /// A code becomes a file name in Tesseract's data directory: nothing but `^[a-z]{3}(_[a-z]+)*$`.
    @Test(arguments: [#"["../eng"]"#, #"["ENG"]"#, #"["en"]"#, #"["eng "]"#, #"["eng/x"]"#, #"[]"#, #"["eng","eng"]"#, #"["eng_"]"#, #"["eng\n"]"#])
    func aLanguageThatIsNotACodeIsRefused(_ languages: String) throws {
        let error = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"ocr","languages":\#(languages)}]"#) }
        #expect(error.code == "invalid_ocr_language", "\(languages): \(error.message)")
        #expect(error.kind == .invalid)
        #expect(error.message.hasPrefix("[0].languages"), "\(error.message)")
    }

    @Test func nineLanguagesAreTooMany() throws {
        let nine = (0..<9).map { "\"l" + String(repeating: Character(UnicodeScalar(97 + $0)!), count: 2) + "\"" }.joined(separator: ",")
        let error = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"ocr","languages":[\#(nine)]}]"#) }
        #expect(error.code == "invalid_ocr_language" && error.message.contains("1 to 8"))
    }

    @Test func ocrComesOnceAndBeforePDFA() throws {
        let twice = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"ocr"},{"op":"ocr","force":true}]"#).checkOrder() }
        #expect(twice.code == "contradictory_operations" && twice.message.contains("ocr twice"))
        let late = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"pdfa"},{"op":"ocr"}]"#).checkOrder() }
        #expect(late.code == "contradictory_operations")
        try Self.decode(#"[{"op":"ocr"},{"op":"optimize"},{"op":"pdfa"}]"#).checkOrder()
    }

    @Test func theTextIsKeptBesideItsPDFAndCarriedAlong() throws {
        let directory = TemporaryDirectory("pdfgate-ocr-text")
        let text = OCRPageText(languages: ["deu"], pages: [.init(page: 2, text: "Müller\nStraße")])
        try text.write(beside: directory.file("a.pdf"))
        #expect(OCRPageText.read(beside: directory.file("a.pdf")) == text)
        #expect(OCRPageText.read(beside: directory.file("b.pdf")) == nil)
        OCRPageText.carry(from: directory.file("a.pdf"), to: directory.file("b.pdf"))
        #expect(OCRPageText.read(beside: directory.file("b.pdf")) == text)
    }
}
