import CPoppler
import Foundation

/// A one-page PDF with text across its middle, or a PNG image in it, for a watermark: drawn with
/// cairo (its PDF surface; text in fontconfig's DejaVu Sans, which has Latin, Greek and
/// Cyrillic), then laid over the document's pages by qpdf, which scales it to each page. Run as
/// `pdfgate stamp-page` inside the operations' sandbox, like every other tool. Text too long for
/// the page shrinks to fit; an image keeps its proportions and fits the page whatever its scale.
public enum StampPage {
    /// What the stamp shows.
    public enum Content: Sendable, Equatable {
        /// Text and its size in points.
        case text(String, fontSize: Double)
        /// A PNG file, as wide as `scale` × the page's width.
        case image(path: String, scale: Double)
    }

    public struct Spec: Sendable, Equatable {
        public var content: Content
        /// Points.
        public var width: Double
        public var height: Double
        /// Degrees, counter-clockwise.
        public var angle: Double
        /// 0…1.
        public var opacity: Double

        public init(content: Content, width: Double, height: Double, angle: Double, opacity: Double) {
            self.content = content
            self.width = width
            self.height = height
            self.angle = angle
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
        let radians = spec.angle * .pi / 180
        cairo_translate(cairo, spec.width / 2, spec.height / 2)
        cairo_rotate(cairo, -radians)
        switch spec.content {
        case .text(let text, let fontSize): drawText(text, fontSize: fontSize, spec: spec, radians: radians, on: cairo)
        case .image(let image, let scale): try drawImage(image, scale: scale, spec: spec, radians: radians, on: cairo)
        }
        cairo_show_page(cairo)
        cairo_surface_finish(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cairo could not write \(path): " + String(cString: cairo_status_to_string(cairo_surface_status(surface))))
        }
    }

    /// How much of the page's width and height a box turned by `radians` may take: 90% of it.
    private static func room(_ spec: Spec, radians: Double) -> Double {
        let (cosine, sine) = (abs(cos(radians)), abs(sin(radians)))
        return 0.9 * min(cosine > 0.001 ? spec.width / cosine : .infinity, sine > 0.001 ? spec.height / sine : .infinity)
    }

    private static func drawText(_ text: String, fontSize: Double, spec: Spec, radians: Double, on cairo: OpaquePointer) {
        cairo_select_font_face(cairo, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cairo, fontSize)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cairo, text, &extents)
        // Text longer than the page has room for along its angle is made smaller to fit.
        let room = room(spec, radians: radians)
        if extents.width > room, extents.width > 0 {
            cairo_set_font_size(cairo, fontSize * room / extents.width)
            cairo_text_extents(cairo, text, &extents)
        }
        cairo_move_to(cairo, -extents.width / 2 - extents.x_bearing, -extents.height / 2 - extents.y_bearing)
        cairo_set_source_rgba(cairo, 0.55, 0.55, 0.55, spec.opacity)
        cairo_show_text(cairo, text)
    }

    private static func drawImage(_ path: String, scale: Double, spec: Spec, radians: Double, on cairo: OpaquePointer) throws(Failure) {
        guard let image = cairo_image_surface_create_from_png(path) else { throw Failure(description: "cannot read the image \(path)") }
        defer { cairo_surface_destroy(image) }
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cannot read the image: " + String(cString: cairo_status_to_string(status)))
        }
        let (width, height) = (Double(cairo_image_surface_get_width(image)), Double(cairo_image_surface_get_height(image)))
        guard width > 0, height > 0 else { throw Failure(description: "cannot read the image: it has no pixels") }
        // As wide as asked, never wider or taller than the page has room for at this angle.
        var factor = spec.width * scale / width
        let (cosine, sine) = (abs(cos(radians)), abs(sin(radians)))
        let turnedWidth = width * cosine + height * sine
        let turnedHeight = width * sine + height * cosine
        factor = min(factor, 0.9 * spec.width / turnedWidth, 0.9 * spec.height / turnedHeight)
        cairo_scale(cairo, factor, factor)
        cairo_set_source_surface(cairo, image, -width / 2, -height / 2)
        cairo_paint_with_alpha(cairo, spec.opacity)
    }
}
