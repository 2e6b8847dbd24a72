import Foundation
import GatewayJobModel

/// Reads what `ocr` must know of every page with three sandboxed Poppler runs over the whole
/// document, not one per page: `pdfinfo -box` (boxes, rotation), `pdftotext` (which pages have
/// text: its pages end with a form feed) and `pdfimages -list` (what each page draws). On a
/// 500-page document that is three process starts instead of 1,500.
struct PageSurvey {
    let step: Step

    func pages(what: String) async throws -> [PageFacts] {
        // Poppler's tools refuse a document without pages as a bad page range: ask qpdf first.
        let count = try await step.pageCount(what)
        guard count > 0 else {
            throw JobFailure(.rejected, code: "pdf_has_no_pages", "\(what) has no pages, so there is nothing to OCR; add pages to it first")
        }
        let info = try await output(.pdfinfo, ["-box", "-f", "1", "-l", String(count), step.inputName], what: what)
        var pages = PageFacts.pages(fromPDFInfo: info)
        guard pages.count == count else {
            throw JobFailure(.rejected, code: "operation_failed", "pdfinfo described \(pages.count) of the \(count) pages of \(what)")
        }
        let textFile = step.prefix + "-survey.txt"
        let text = try await step.runner.run(
            .pdftotext,
            ["-enc", "UTF-8", step.inputName, textFile],
            in: step.work,
            what: what,
            deadline: step.deadline
        )
        guard text.status == 0 else { throw PDFToolRunner.refused(.pdftotext, what, text.log) }
        let withText = PageFacts.pagesWithText(fromText: (try? String(contentsOfFile: step.work + "/" + textFile, encoding: .utf8)) ?? "")
        try? FileManager.default.removeItem(atPath: step.work + "/" + textFile)
        let images = PageFacts.images(fromList: try await output(.pdfimages, ["-list", step.inputName], what: what))
        for index in pages.indices {
            pages[index].hasText = withText.contains(pages[index].number)
            pages[index].images = images[pages[index].number] ?? []
        }
        return pages
    }

    /// What `tool` prints, when it exits 0.
    private func output(_ tool: PDFToolRunner.Tool, _ arguments: [String], what: String) async throws -> String {
        let file = step.work + "/\(step.prefix)-\(tool.rawValue).out"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let finished = try await step.runner.run(tool, arguments, in: step.work, what: what, deadline: step.deadline, stdout: file)
        guard finished.status == 0 else { throw PDFToolRunner.refused(tool, what, finished.log) }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }
}
