import Foundation
import GatewayLibraryModel
import Testing

@testable import GatewayPDF

/// The inspect worker writes the pages' text for the search index, in the same request as the
/// inspection: one file, pages joined by form feeds, within the caps.
@Suite(.timeLimit(.minutes(1)))
struct PageTextTests {
    @Test func eachPageTextIsWrittenInOrder() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("text.txt").path

        let inspection = try await makePool(poolSize: 1).using { pool in
            try await pool.inspect(path: Fixtures.pdf("many-pages.pdf"), thumbnail: nil, textOutputPath: output)
        }
        #expect(inspection.info.pageCount == 12)
        let result = try #require(inspection.text)
        #expect(result == PageTextResult(pages: 12, truncated: false))
        let text = try #require(try result.read(path: output))
        #expect(text.pages.count == 12 && !text.truncated)
        for (index, page) in text.pages.enumerated() {
            #expect(page.contains("Page \(index + 1) of 12"), "page \(index + 1): \(page.prefix(80))")
            #expect(page.contains("PDF Gateway converts documents"))
        }
    }

    @Test func noTextIsWrittenUnlessAsked() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inspection = try await makePool(poolSize: 1).using { pool in
            try await pool.inspect(path: Fixtures.pdf("one-page.pdf"), thumbnail: nil, textOutputPath: nil)
        }
        #expect(inspection.text == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Text is never a reason to refuse a PDF: when its file cannot be written, the inspection
    /// still answers, and says why there is no text.
    @Test func aTextFileThatCannotBeWrittenDoesNotFailTheInspection() async throws {
        let inspection = try await makePool(poolSize: 1).using { pool in
            try await pool.inspect(path: Fixtures.pdf("one-page.pdf"), thumbnail: nil, textOutputPath: "/nonexistent-dir/text.txt")
        }
        #expect(inspection.info.pageCount == 1)
        let result = try #require(inspection.text)
        #expect(result.failure?.contains("/nonexistent-dir/text.txt") == true)
        #expect(try result.read(path: "/nonexistent-dir/text.txt") == nil)
    }

    @Test func theRequestAndAnswerCarryTheTextOnTheWire() throws {
        let request = WorkerProtocol.Request(path: "/a.pdf", thumbnail: nil, textOutputPath: "/a.txt")
        let line = try WorkerProtocol.encodeLine(request)
        #expect(String(decoding: line, as: UTF8.self).contains("\"text_output_path\":\"/a.txt\""))
        #expect(try WorkerProtocol.decodeLine(WorkerProtocol.Request.self, from: line.dropLast()) == request)
        let plain = try WorkerProtocol.encodeLine(WorkerProtocol.Request(path: "/a.pdf", thumbnail: nil))
        #expect(try WorkerProtocol.decodeLine(WorkerProtocol.Request.self, from: plain.dropLast()).textOutputPath == nil)

        let info = PDFInfo(pageCount: 3, pdfVersion: "1.7", pageWidth: 612, pageHeight: 792, encrypted: false, linearized: false)
        for text in [PageTextResult(pages: 3, truncated: true), PageTextResult(pages: 0, truncated: false, failure: "disk \"full\"\n")] {
            let response = WorkerProtocol.Response(.success(info), text: text)
            let answer = WorkerProtocol.encodeResponseLine(response)
            #expect(try WorkerProtocol.decodeLine(WorkerProtocol.Response.self, from: answer.dropLast()) == response)
        }
    }
}
