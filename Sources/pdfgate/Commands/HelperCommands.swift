import ArgumentParser
import Foundation
import GatewayCore
import GatewayJobModel
import GatewayPDF

/// `pdfgate stamp-page` (hidden): a watermark's stamp, drawn with cairo inside the operations'
/// sandbox (see `StampPage`); the PDF operations run it, then lay its page over the document's.
struct StampPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperExecutable.Subcommand.stampPage.rawValue,
        abstract: "Internal: draws a watermark's stamp page (started by the gateway itself).",
        shouldDisplay: false
    )

    @Option var text: String?
    @Option var fontSize: Double = 72
    @Option var image: String?
    @Option var width: Double
    @Option var height: Double
    @Option(help: "StampGeometry.Request, as JSON.") var geometry: String
    @Option var opacity: Double
    @Option(help: "Text's fill colour, #RRGGBB.") var color: String?
    @Option(help: "Text's outline colour, #RRGGBB.") var strokeColor: String?
    @Option(help: "fill, stroke or fill_stroke.") var renderMode: String?
    @Option(help: "One of PDF's standard fonts, such as Helvetica-Bold.") var font: String?
    @Option var output: String

    func validate() throws {
        if (text == nil) == (image == nil) { throw ValidationError("give --text or --image") }
    }

    func run() throws {
        let content: StampPage.Content = image.map { .image(path: $0) } ?? .text(text ?? "", fontSize: fontSize)
        guard let request = try? JSONDecoder().decode(StampGeometry.Request.self, from: Data(geometry.utf8)) else {
            throw ValidationError("--geometry is not a StampGeometry.Request")
        }
        var spec = StampPage.Spec(content: content, width: width, height: height, geometry: request, opacity: opacity)
        if let color { spec.style.color = try Self.color(color) }
        if let strokeColor { spec.style.strokeColor = try Self.color(strokeColor) }
        if let renderMode {
            guard let mode = PDFOperation.Watermark.RenderMode(rawValue: renderMode) else { throw ValidationError("--render-mode \(renderMode)") }
            spec.style.renderMode = mode
        }
        if let font {
            guard let parsed = PDFOperation.Watermark.Font(name: font) else { throw ValidationError("--font \(font)") }
            spec.style.font = parsed
        }
        do {
            try StampPage.render(spec, to: output)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private static func color(_ hex: String) throws -> PDFOperation.Watermark.Color {
        guard let color = PDFOperation.Watermark.Color(hex: hex) else { throw ValidationError("\(hex) is not #RRGGBB") }
        return color
    }
}
