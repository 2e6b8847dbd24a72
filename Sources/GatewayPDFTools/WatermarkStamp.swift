import Foundation
import GatewayCore
import GatewayJobModel

/// A watermark: a stamp page the size of the document's first — text or a PNG drawn there by
/// `pdfgate stamp-page` (cairo), a PDF's page placed there by `PDFStampPlacement` — that qpdf
/// lays over the chosen pages (`--overlay`), or under them (`--underlay`), scaling it down to
/// any smaller page: text stays selectable, and the page's own content is untouched.
struct WatermarkStamp {
    let step: Step

    func stamp(_ mark: PDFOperation.Watermark, secrets: JobSecrets, what: String) async throws {
        let (width, height) = try await firstPageSize(what: what)
        let stamp = step.prefix + "-stamp.pdf"
        var range = mark.pages?.qpdfRange ?? "1-z"
        var pairing = ["--repeat=1"]
        if let image = mark.image, image.format == .pdf {
            let name = step.prefix + "-mark.pdf"
            try step.stage(image.sha256, as: name, secrets: secrets, missingCode: "stamp_image_missing", described: "the watermark's PDF")
            let pageCount = try await step.pageCount(what)
            let placement = PDFStampPlacement(step: step, what: what)
            let stampPages = try await placement.carrier(
                for: mark,
                stamp: name,
                width: width,
                height: height,
                documentPages: pageCount,
                output: stamp
            )
            if stampPages > 1 {
                // Page by page, as pdfcpu pairs a stamp PDF's pages with the document's.
                let pages = try mark.pages?.pages(of: pageCount) ?? Array(1...pageCount)
                let paired = PDFStampPlacement.pairing(pages, stampPages: stampPages)
                range = paired.to
                pairing = ["--from=" + paired.from]
            }
        } else {
            try await draw(mark, secrets: secrets, width: width, height: height, into: stamp, what: what)
        }
        try await step.qpdf(
            [step.inputName, mark.layer == .under ? "--underlay" : "--overlay", stamp, "--to=" + range] + pairing + ["--", step.outputName],
            what
        )
    }

    /// Text or a PNG on a page of its own, by the cairo helper.
    private func draw(
        _ mark: PDFOperation.Watermark,
        secrets: JobSecrets,
        width: Double,
        height: Double,
        into stamp: String,
        what: String
    ) async throws {
        var drawing: [String]
        if let image = mark.image {
            let name = step.prefix + "-image.png"
            try step.stage(image.sha256, as: name, secrets: secrets, missingCode: "stamp_image_missing", described: "the watermark's image")
            drawing = ["--image", name]
        } else {
            drawing = ["--text", mark.text ?? "", "--font-size", String(mark.fontSize), "--render-mode", mark.renderMode.rawValue]
            if let color = mark.color { drawing += ["--color", color.hex] }
            if let stroke = mark.strokeColor { drawing += ["--stroke-color", stroke.hex] }
            if let font = mark.font { drawing += ["--font", font.name] }
        }
        let geometry = String(decoding: try JSONEncoder().encode(StampGeometry.Request(mark)), as: UTF8.self)
        let drawn = try await step.runner.run(
            .helper,
            [HelperExecutable.Subcommand.stampPage.rawValue] + drawing + [
                "--width", String(width), "--height", String(height),
                "--geometry", geometry, "--opacity", String(mark.opacity),
                "--output", stamp,
            ],
            in: step.work,
            what: what,
            deadline: step.deadline
        )
        guard drawn.status == 0 else {
            // A PNG cairo cannot read is the client's; anything else may pass on a retry.
            if mark.image != nil, drawn.log.contains("cannot read the image") {
                throw JobFailure(.rejected, code: "invalid_image", "the watermark's PNG cannot be read: \(drawn.log)")
            }
            throw JobFailure(.transient, code: "operation_failed", "the watermark could not be drawn: \(drawn.log)")
        }
    }

    /// The first page's MediaBox in points, from qpdf's JSON (US Letter if it has none).
    private func firstPageSize(what: String) async throws -> (Double, Double) {
        let pdf = QPDFJSON(step: step, file: step.inputName)
        let pages = try await pdf.section("pages", what: what)
        guard let first = (pages as? [[String: Any]])?.first?["object"] as? String else { return (612, 792) }
        let page = try await pdf.object(first, what: what).value
        let box = (page["/MediaBox"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
        guard box.count == 4, box[2] - box[0] > 1, box[3] - box[1] > 1 else { return (612, 792) }
        let rotated = ((page["/Rotate"] as? NSNumber)?.intValue ?? 0) % 180 != 0
        let (width, height) = (box[2] - box[0], box[3] - box[1])
        return rotated ? (height, width) : (width, height)
    }
}
