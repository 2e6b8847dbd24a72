import CPoppler
import Foundation
import GatewayJobModel

/// A one-page PDF with text, or a PNG image, placed as `StampGeometry` says, for a watermark:
/// drawn with cairo (its PDF surface; text in fontconfig's DejaVu Sans, which has Latin, Greek and
/// Cyrillic, or one of PDF's standard fonts by its metric-compatible Nimbus face), then laid over
/// or under the document's pages by qpdf, which scales it to each page. Run as
/// `pdfgate stamp-page` inside the operations' sandbox, like every other tool.
public enum StampPage {
    /// What the stamp shows.
    public enum Content: Sendable, Equatable {
        /// Text and its size in points.
        case text(String, fontSize: Double)
        /// A PNG file, one point a pixel before `StampGeometry` scales it.
        case image(path: String)
    }

    /// How text is painted; our grey DejaVu Sans Bold, filled, by default.
    public struct TextStyle: Sendable, Equatable {
        public var color = PDFOperation.Watermark.Color.ourGrey
        public var strokeColor = PDFOperation.Watermark.Color.ourGrey
        public var renderMode = PDFOperation.Watermark.RenderMode.fill
        public var font: PDFOperation.Watermark.Font?

        public init() {}
    }

    public struct Spec: Sendable, Equatable {
        public var content: Content
        /// Points.
        public var width: Double
        public var height: Double
        public var geometry: StampGeometry.Request
        /// 0…1.
        public var opacity: Double
        public var style = TextStyle()

        public init(content: Content, width: Double, height: Double, geometry: StampGeometry.Request, opacity: Double) {
            self.content = content
            self.width = width
            self.height = height
            self.geometry = geometry
            self.opacity = opacity
        }
    }

    /// Why a stamp could not be drawn.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes the stamp to `path`.
    public static func render(_ spec: Spec, to path: String) throws(Failure) {
        guard let surface = cairo_pdf_surface_create(path, spec.width, spec.height) else { throw Failure(description: "cairo has no PDF surface") }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { throw Failure(description: "cairo could not draw on \(path)") }
        defer { cairo_destroy(cairo) }
        switch spec.content {
        case .text(let text, let fontSize): drawText(text, fontSize: fontSize, spec: spec, on: cairo)
        case .image(let image): try drawImage(image, spec: spec, on: cairo)
        }
        cairo_show_page(cairo)
        cairo_surface_finish(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cairo could not write \(path): " + String(cString: cairo_status_to_string(cairo_surface_status(surface))))
        }
    }

    /// Moves cairo's origin to the mark's centre, turned and scaled, for a mark `width`×`height`.
    private static func place(_ spec: Spec, width: Double, height: Double, isText: Bool, on cairo: OpaquePointer) {
        let geometry = StampGeometry(spec.geometry, width: width, height: height, pageWidth: spec.width, pageHeight: spec.height, isText: isText)
        // cairo's y runs down the page, PDF's up.
        cairo_translate(cairo, geometry.centerX, spec.height - geometry.centerY)
        cairo_rotate(cairo, -geometry.angle * .pi / 180)
        cairo_scale(cairo, geometry.factor, geometry.factor)
    }

    private static func drawText(_ text: String, fontSize: Double, spec: Spec, on cairo: OpaquePointer) {
        let style = spec.style
        if let font = style.font {
            let families: [PDFOperation.Watermark.Font.Family: String] = [
                .helvetica: "Nimbus Sans", .times: "Nimbus Roman", .courier: "Nimbus Mono PS",
            ]
            cairo_select_font_face(
                cairo,
                families[font.family] ?? "Nimbus Sans",
                font.italic ? CAIRO_FONT_SLANT_OBLIQUE : CAIRO_FONT_SLANT_NORMAL,
                font.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL
            )
        } else {
            cairo_select_font_face(cairo, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        }
        cairo_set_font_size(cairo, fontSize)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cairo, text, &extents)
        place(spec, width: extents.width, height: extents.height, isText: true, on: cairo)
        cairo_move_to(cairo, -extents.width / 2 - extents.x_bearing, -extents.height / 2 - extents.y_bearing)
        func source(_ color: PDFOperation.Watermark.Color) { cairo_set_source_rgba(cairo, color.red, color.green, color.blue, spec.opacity) }
        switch style.renderMode {
        case .fill:
            source(style.color)
            cairo_show_text(cairo, text)
        case .stroke, .fillStroke:
            // Outlines: PDF's line width of 1, in the text's own space as pdfcpu draws it.
            cairo_text_path(cairo, text)
            if style.renderMode == .fillStroke {
                source(style.color)
                cairo_fill_preserve(cairo)
            }
            source(style.strokeColor)
            cairo_set_line_width(cairo, 1)
            cairo_stroke(cairo)
        }
    }

    private static func drawImage(_ path: String, spec: Spec, on cairo: OpaquePointer) throws(Failure) {
        guard let image = cairo_image_surface_create_from_png(path) else { throw Failure(description: "cannot read the image \(path)") }
        defer { cairo_surface_destroy(image) }
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cannot read the image: " + String(cString: cairo_status_to_string(status)))
        }
        let (width, height) = (Double(cairo_image_surface_get_width(image)), Double(cairo_image_surface_get_height(image)))
        guard width > 0, height > 0 else { throw Failure(description: "cannot read the image: it has no pixels") }
        place(spec, width: width, height: height, isText: false, on: cairo)
        cairo_set_source_surface(cairo, image, -width / 2, -height / 2)
        cairo_paint_with_alpha(cairo, spec.opacity)
    }
}
