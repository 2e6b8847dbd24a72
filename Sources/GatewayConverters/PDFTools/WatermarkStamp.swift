import Foundation
import GatewayCore

/// A watermark: `pdfgate stamp-page` draws the text or the PNG on one page the size of the
/// document's first (cairo), and qpdf lays it over the chosen pages (`--overlay`), scaling it to
/// each page's size — so text stays selectable, and the page's own content is untouched.
struct WatermarkStamp {
    let step: Step

    func stamp(_ mark: PDFOperation.Watermark, secrets: JobSecrets, what: String) async throws {
        let (width, height) = try await firstPageSize(what: what)
        let stamp = step.prefix + "-stamp.pdf"
        var drawing: [String]
        if let image = mark.image {
            let name = step.prefix + "-image.png"
            try step.stage(image.sha256, as: name, secrets: secrets, missingCode: "stamp_image_missing", described: "the watermark's image")
            drawing = ["--image", name, "--scale", String(mark.scale)]
        } else {
            drawing = ["--text", mark.text ?? "", "--font-size", String(mark.fontSize)]
        }
        let drawn = try await step.runner.run(
            .helper,
            [HelperExecutable.Subcommand.stampPage.rawValue] + drawing + [
                "--width", String(width), "--height", String(height),
                "--angle", String(mark.angle), "--opacity", String(mark.opacity),
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
        try await step.qpdf(
            [step.inputName, "--overlay", stamp, "--to=" + (mark.pages?.qpdfRange ?? "1-z"), "--repeat=1", "--", step.outputName],
            what
        )
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
