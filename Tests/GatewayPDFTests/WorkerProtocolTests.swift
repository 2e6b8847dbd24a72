import Foundation
import GatewayLibraryModel
import Testing

@testable import GatewayPDF

/// The worker writes its answers by hand; the pool reads them with `JSONDecoder`. Every value
/// must come back exactly as it went in, awkward strings and fractional dates included.
@Suite("Worker protocol")
struct WorkerProtocolTests {
    @Test("a hand-written response decodes to the value it was written from")
    func responsesRoundTrip() throws {
        let full = PDFInfo(
            pageCount: 42,
            title: "Quotes \" and \\ backslashes, a\nnewline, a\ttab, \u{1} a control, and ünïcödé ✓",
            author: "A. Author",
            subject: "",
            keywords: "alpha, beta",
            creator: "make-fixtures",
            producer: "reportlab",
            createdAt: Date(timeIntervalSince1970: 1_704_164_645.123_456),
            modifiedAt: Date(timeIntervalSince1970: -86_400.5),
            pdfVersion: "1.7",
            pageWidth: 595.275_590_551_181_1,
            pageHeight: 841.889_763_779_527_6,
            encrypted: true,
            linearized: true,
            pdfa: "PDF/A-2b"
        )
        let bare = PDFInfo(pageCount: 1, pdfVersion: "1.3", pageWidth: 612, pageHeight: 792, encrypted: false, linearized: false)
        let responses: [WorkerProtocol.Response] = [
            .init(.success(full)), .init(.success(bare)),
            .init(.failure(InspectionError(.damaged, "x.pdf is truncated: \"no %%EOF\"\n"))),
        ]
        for response in responses {
            let line = WorkerProtocol.encodeResponseLine(response)
            #expect(line.last == UInt8(ascii: "\n") && !line.dropLast().contains(UInt8(ascii: "\n")), "one line")
            let decoded = try WorkerProtocol.decodeLine(WorkerProtocol.Response.self, from: line.dropLast())
            #expect(decoded == response, "\(String(decoding: line, as: UTF8.self))")
        }
    }
}
