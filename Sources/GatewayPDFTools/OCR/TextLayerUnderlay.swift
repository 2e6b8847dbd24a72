import Foundation

/// Puts Tesseract's invisible text under the pages it read, with qpdf alone: the batches' text
/// PDFs become one (`--empty --pages`), whose pages are laid under the OCRed pages as form
/// XObjects (`--underlay --to --from`), fitted to each page's box and turned with its `/Rotate`.
/// The page's own content, its images included, is not rewritten: they stay byte for byte.
struct TextLayerUnderlay {
    let step: Step

    /// Writes the step's output: its input with `textPDFs` (in order, one page per entry of
    /// `pages`) laid under `pages`.
    func write(_ textPDFs: [String], under pages: [Int], what: String) async throws {
        var layer = textPDFs[0]
        if textPDFs.count > 1 {
            layer = step.prefix + "-text.pdf"
            try await step.qpdf(["--empty", "--pages"] + textPDFs.flatMap { [$0, "1-z"] } + ["--", layer], what)
        }
        try await step.qpdf(
            [step.inputName, "--underlay", layer, "--to=" + Self.ranges(pages), "--from=1-\(pages.count)", "--", step.outputName],
            what
        )
        for file in Set(textPDFs + [layer]) { try? FileManager.default.removeItem(atPath: step.work + "/" + file) }
    }

    /// `[1, 2, 3, 5]` as qpdf's page range `1-3,5` (ascending, as the text pages are).
    static func ranges(_ pages: [Int]) -> String {
        var parts: [String] = []
        var start = pages.first ?? 1
        var end = start
        for page in pages.dropFirst() {
            if page == end + 1 {
                end = page
                continue
            }
            parts.append(start == end ? "\(start)" : "\(start)-\(end)")
            (start, end) = (page, page)
        }
        parts.append(start == end ? "\(start)" : "\(start)-\(end)")
        return parts.joined(separator: ",")
    }
}
