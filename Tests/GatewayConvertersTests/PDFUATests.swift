import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayPDFTools
@testable import GatewaySandbox

/// The `pdfua` operation with the real LibreOffice, qpdf and Poppler in the real sandbox: the
/// PDF comes out tagged, declaring PDF/UA (and PDF/A with a part), with its text and title, and
/// a PDF LibreOffice cannot import fails by name. Each run starts a fresh LibreOffice.
@Suite("PDF/UA with LibreOffice", .serialized, .timeLimit(.minutes(5)))
struct PDFUATests {
    let directory = TemporaryDirectory("pdfgate-pdfua")
    let tools = LocalPDFOperator(sandbox: ConverterSandbox())

    /// `operations` on `pdf`, answering the one PDF they made.
    func apply(_ operations: [PDFOperation], to pdf: String, work: String = "work") async throws -> String {
        let outputs = try await tools.apply(
            operations,
            to: pdf,
            secrets: JobSecrets(),
            work: directory.path + "/" + work,
            deadline: .now + .seconds(120)
        )
        try #require(outputs.count == 1)
        return outputs[0]
    }

    /// `pdfinfo -meta`: the XMP packet.
    func xmp(_ pdf: String) async throws -> String { try await run("pdfinfo", ["-meta", pdf]).stdout }

    /// Whether the XMP says `value` for `property` (`pdfuaid:part`), as an element or an attribute.
    func declares(_ xmp: String, _ property: String, _ value: String) -> Bool {
        xmp.contains("<\(property)>\(value)</\(property)>") || xmp.contains("\(property)=\"\(value)\"") || xmp.contains("\(property)='\(value)'")
    }

    @Test func aPDFComesOutTaggedPDFUAWithItsTextAndTitle() async throws {
        let result = try await apply([.pdfua(nil)], to: Fixtures.pdf("one-page.pdf"))
        let info = try await run("pdfinfo", [result]).stdout
        #expect(info.contains("Tagged:          yes"), "\(info)")
        // LibreOffice's export drops the document information; the input's is put back.
        #expect(info.contains("Title:           One Page Fixture") && info.contains("Author:          PDF Gateway Tests"), "\(info)")
        let meta = try await xmp(result)
        #expect(declares(meta, "pdfuaid:part", "1"), "\(meta)")
        #expect(!meta.contains("pdfaid:part"), "no PDF/A without a part: \(meta)")
        #expect(meta.contains("One Page Fixture"), "the title is in the XMP too (dc:title): \(meta)")
        let text = try await run("pdftotext", [result, "-"]).stdout
        #expect(text.contains("PDF Gateway converts documents to PDF"), "\(text)")
        let catalog = try await run("qpdf", ["--json=2", "--json-key=qpdf", result]).stdout
        #expect(catalog.contains(#""/DisplayDocTitle": true"#), "the viewer shows the title, as PDF/UA wants")
        #expect(try await run("qpdf", ["--check", result]).status == 0)
    }

    /// A three-page PDF, PDF/UA and PDF/A-2b in one export; the time is the figure the README gives.
    @Test func withAPartItIsPDFAInTheSameExport() async throws {
        let three = directory.path + "/three.pdf"
        let cut = try await run("qpdf", [Fixtures.pdf("many-pages.pdf"), "--pages", ".", "1-3", "--", three])
        try #require(cut.status == 0, "\(cut.stderr)")
        let start = ContinuousClock.now
        let result = try await apply([.pdfua(.a2b)], to: three)
        print("pdfua with PDF/A-2b of a 3-page PDF: \(start.duration(to: .now))")
        let info = try await run("pdfinfo", [result]).stdout
        #expect(info.contains("Tagged:          yes") && info.contains("Pages:           3"), "\(info)")
        let meta = try await xmp(result)
        #expect(declares(meta, "pdfuaid:part", "1") && declares(meta, "pdfaid:part", "2") && declares(meta, "pdfaid:conformance", "B"), "\(meta)")
        let lastPage = try await run("pdftotext", ["-f", "3", "-l", "3", result, "-"]).stdout
        #expect(!lastPage.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "page 3 keeps its text")
    }

    @Test(arguments: ["truncated.pdf", "not-a-pdf.pdf"]) func aPDFLibreOfficeCannotImportFailsByName(name: String) async throws {
        do {
            _ = try await apply([.pdfua(nil)], to: Fixtures.pdf(name), work: name)
            Issue.record("\(name) must fail")
        } catch let failure as JobFailure {
            print("pdfua of \(name) → \(failure.code): \(failure.message)")
            #expect(failure.kind == .rejected && failure.code == "operation_failed", "\(failure)")
            #expect(failure.message.contains("LibreOffice could not import the document to make it PDF/UA"), "\(failure.message)")
        }
        // The one-shot LibreOffice's profile and scratch went with the step.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + name)
        #expect(!left.contains { $0.hasSuffix("-libreoffice") }, "\(left)")
    }
}
