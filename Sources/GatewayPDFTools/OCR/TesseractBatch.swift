import Foundation
import GatewayJobModel
import GatewaySandbox

/// One lane's work: the images of a batch of pages, then one Tesseract run over their list in
/// text-only mode (`-c textonly_pdf=1 pdf txt`), which writes an invisible-text PDF with a page
/// per image, sized from its pixels and `--dpi`, and the plain text of each page.
struct TesseractBatch {
    let step: Step
    let batch: OCRLanePlan.Batch
    /// Names this batch's files in the step's directory.
    let stem: String
    let languages: String

    /// What the run left: its text PDF (in the step's directory) and each page's text, in order.
    struct Output: Sendable {
        var textPDF: String
        var texts: [String]
    }

    /// Makes the images and reads them, stopping at `deadline` (the job's, or the batch's budget).
    func run(deadline: ContinuousClock.Instant, what: String) async throws -> Output {
        let images = try await PageImages(step: step, stem: stem).make(batch.pages, dpi: batch.dpi, deadline: deadline, what: what)
        defer { for image in images { try? FileManager.default.removeItem(atPath: step.work + "/" + image) } }
        // Not `<stem>-ocr.txt`: that is where Tesseract writes the text.
        let list = stem + "-pages.lst"
        try Data((images.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: step.work + "/" + list))
        let output = stem + "-ocr"
        let finished = try await step.runner.run(
            .tesseract,
            [list, output, "-l", languages, "--dpi", String(batch.dpi), "-c", "textonly_pdf=1", "pdf", "txt"],
            in: step.work,
            what: what,
            deadline: deadline,
            // Tesseract's OpenMP threads fight the other lanes for the same cores: under load one
            // thread reads a page far sooner than two (docs/scan-ocr-search-notes.md §3).
            environment: ["OMP_THREAD_LIMIT": "1"]
        )
        guard finished.status == 0, FileManager.default.fileExists(atPath: step.work + "/" + output + ".pdf") else {
            throw PDFToolRunner.refused(.tesseract, what, finished.log)
        }
        // The text renderer ends every page with a form feed.
        let text = (try? String(contentsOfFile: step.work + "/" + output + ".txt", encoding: .utf8)) ?? ""
        var texts = text.split(separator: "\u{0C}", omittingEmptySubsequences: false).map(String.init)
        if texts.count == batch.pages.count + 1, texts.last?.allSatisfy(\.isWhitespace) == true { texts.removeLast() }
        guard texts.count == batch.pages.count else {
            throw JobFailure(
                .rejected,
                code: "operation_failed",
                "Tesseract read \(texts.count) of the \(batch.pages.count) pages it was given of \(what): \(OutputCheck.lastLines(finished.log))"
            )
        }
        return Output(textPDF: output + ".pdf", texts: texts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }
}
