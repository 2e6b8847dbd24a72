import Foundation
import GatewayJobModel

/// Smaller files: Ghostscript recompresses images to a preset's resolution and drops what is
/// unused, then qpdf packs objects into compressed streams and linearizes for the web. Either
/// tool can make a file bigger (Ghostscript re-embeds fonts, a text PDF has no images to win
/// on), so the smallest candidate is kept; without `linearize` the input itself is one, so the
/// file never grows.
struct Optimizer {
    let step: Step

    func optimize(_ optimize: PDFOperation.Optimize, what: String) async throws {
        var pack = ["--object-streams=generate", "--compress-streams=y", "--recompress-flate", "--compression-level=9"]
        if optimize.linearize { pack.append("--linearize") }
        let packed = step.prefix + "-packed.pdf"
        try await step.qpdf(pack + [step.inputName, packed], what)
        // Linearizing is a change the input lacks; otherwise it competes as it is.
        var candidates = [packed] + (optimize.linearize ? [] : [step.inputName])
        if optimize.images != .keep {
            let rewritten = step.prefix + "-gs.pdf"
            let repacked = step.prefix + "-gs-packed.pdf"
            try await step.ghostscript(
                [
                    "-sDEVICE=pdfwrite",
                    // Ghostscript turns pages to match their text by default: keep them as they are.
                    "-dAutoRotatePages=/None",
                    "-dPDFSETTINGS=/\(optimize.images.rawValue)",
                    "-dCompatibilityLevel=1.7",
                    "-dDetectDuplicateImages=true",
                    "-sOutputFile=" + rewritten,
                    step.inputName,
                ],
                what
            )
            try await step.qpdf(pack + [rewritten, repacked], what)
            candidates.append(repacked)
        }
        let smallest = candidates.min { (ToolFiles.size(step.work + "/" + $0) ?? .max) < (ToolFiles.size(step.work + "/" + $1) ?? .max) }!
        try ToolFiles.moveReplacing(step.work + "/" + smallest, to: step.output)
    }
}
