import Foundation
import GatewayJobModel

/// The pictures Tesseract reads for a batch of pages, made in the step's directory by sandboxed
/// Poppler runs: a page that is one upright full-page image gives that image as it is stored
/// (`pdfimages`: a JPEG byte for byte, anything else as PNM), so nothing is drawn twice; any
/// other page is drawn by `pdftoppm` in grey, as a viewer shows it (`/Rotate` applied, only the
/// box qpdf later lays the text into). Consecutive pages of one kind share one run.
///
/// Uncompressed PNM, never PNG: compressing a noisy 300-dpi page takes pdftoppm far longer than
/// writing it as it is, and the large file is gone once its batch is read.
struct PageImages {
    let step: Step
    /// Names this batch's files apart from the others' in the same directory.
    let stem: String

    /// One image file per page of `pages`, in their order (names relative to the step's directory).
    func make(_ pages: [PageFacts], dpi: Int, deadline: ContinuousClock.Instant, what: String) async throws -> [String] {
        var files: [Int: String] = [:]
        for run in Self.runs(pages) {
            let first = String(run[0].number)
            let last = String(run[run.count - 1].number)
            switch run[0].source {
            case .image:
                let root = "\(stem)-img-\(first)"
                try await tool(.pdfimages, ["-p", "-j", "-f", first, "-l", last, step.inputName, root], deadline: deadline, what: what)
                for (page, name) in written(root) { files[page] = name }
            case .raster:
                let root = "\(stem)-ras-\(first)"
                var arguments = ["-r", String(dpi), "-gray", "-cropbox", "-f", first, "-l", last]
                if run.count == 1, let crop = Self.trimCrop(run[0], dpi: dpi) {
                    arguments += ["-x", String(crop.x), "-y", String(crop.y), "-W", String(crop.width), "-H", String(crop.height)]
                }
                try await tool(.pdftoppm, arguments + [step.inputName, root], deadline: deadline, what: what)
                for (page, name) in written(root) { files[page] = name }
            }
        }
        return try pages.map { page in
            guard let file = files[page.number] else {
                throw JobFailure(.rejected, code: "operation_failed", "Poppler wrote no image of page \(page.number) of \(what) to OCR")
            }
            return file
        }
    }

    /// Consecutive pages read the same way; a page whose text box is smaller than its crop box
    /// is drawn alone, since its crop is its own.
    static func runs(_ pages: [PageFacts]) -> [[PageFacts]] {
        var runs: [[PageFacts]] = []
        for page in pages {
            if let last = runs.last?.last, last.number + 1 == page.number, kind(last) == kind(page), trimCrop(page, dpi: 1) == nil,
                trimCrop(last, dpi: 1) == nil
            {
                runs[runs.count - 1].append(page)
            } else {
                runs.append([page])
            }
        }
        return runs
    }

    private static func kind(_ page: PageFacts) -> Int {
        if case .image = page.source { 0 } else { 1 }
    }

    /// Where a page's `TrimBox` lies in its drawn crop box, in pixels at `dpi` and as the page
    /// is viewed (turned by `/Rotate`): qpdf lays the text into the trim box, so that is what
    /// Tesseract must see. Nil when the two boxes are the same, as they nearly always are.
    static func trimCrop(_ page: PageFacts, dpi: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        let crop = page.cropBox
        let trim = page.trimBox
        guard !PageFacts.same(crop, trim), crop.count == 4, trim.count == 4 else { return nil }
        // Margins of the trim box inside the crop box, on the unturned page.
        let left = max(trim[0] - crop[0], 0)
        let bottom = max(trim[1] - crop[1], 0)
        let right = max(crop[2] - trim[2], 0)
        let top = max(crop[3] - trim[3], 0)
        let width = max(min(trim[2], crop[2]) - max(trim[0], crop[0]), 1)
        let height = max(min(trim[3], crop[3]) - max(trim[1], crop[1]), 1)
        // Turned clockwise, each edge takes the place of the one before it.
        let (viewedLeft, viewedTop, viewedWidth, viewedHeight) =
            switch page.rotation {
            case 90: (bottom, left, height, width)
            case 180: (right, bottom, width, height)
            case 270: (top, right, height, width)
            default: (left, top, width, height)
            }
        let scale = Double(dpi) / 72
        return (
            Int((viewedLeft * scale).rounded()), Int((viewedTop * scale).rounded()),
            Int((viewedWidth * scale).rounded()), Int((viewedHeight * scale).rounded())
        )
    }

    /// The files a run wrote under `root`, by page: `root-3-000.jpg` (pdfimages with `-p`) or
    /// `root-03.pgm` (pdftoppm pads the page number).
    private func written(_ root: String) -> [(Int, String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: step.work)) ?? []
        return names.filter { $0.hasPrefix(root + "-") }.compactMap { name in
            let number = name.dropFirst(root.count + 1).split(separator: "-").first?.split(separator: ".").first
            return number.flatMap { Int($0) }.map { ($0, name) }
        }
    }

    private func tool(_ tool: PDFToolRunner.Tool, _ arguments: [String], deadline: ContinuousClock.Instant, what: String) async throws {
        let finished = try await step.runner.run(tool, arguments, in: step.work, what: what, deadline: deadline)
        guard finished.status == 0 else { throw PDFToolRunner.refused(tool, what, finished.log) }
    }
}
