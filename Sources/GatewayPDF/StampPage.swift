import CPoppler
import Foundation

/// A one-page PDF with text across its middle, for a watermark: drawn with cairo (its PDF
/// surface, fontconfig's DejaVu Sans, which has Latin, Greek and Cyrillic), then laid over the
/// document's pages by qpdf, which scales it to each page. Run as `pdfgate stamp-page` inside
/// the operations' sandbox, like every other tool. Text too long for the page shrinks to fit.
public enum StampPage {
    public struct Spec: Sendable, Equatable {
        public var text: String
        /// Points.
        public var width: Double
        public var height: Double
        public var fontSize: Double
        /// Degrees, counter-clockwise.
        public var angle: Double
        /// 0…1.
        public var opacity: Double

        public init(text: String, width: Double, height: Double, fontSize: Double, angle: Double, opacity: Double) {
            self.text = text
            self.width = width
            self.height = height
            self.fontSize = fontSize
            self.angle = angle
            self.opacity = opacity
        }
    }

    /// Writes the stamp to `path`; false when cairo could not.
    public static func render(_ spec: Spec, to path: String) -> Bool {
        guard let surface = cairo_pdf_surface_create(path, spec.width, spec.height) else { return false }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { return false }
        defer { cairo_destroy(cairo) }
        cairo_select_font_face(cairo, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cairo, spec.fontSize)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cairo, spec.text, &extents)
        // Text longer than the page has room for along its angle is made smaller to fit, with a margin.
        let radians = spec.angle * .pi / 180
        let (cosine, sine) = (abs(cos(radians)), abs(sin(radians)))
        let room = 0.9 * min(cosine > 0.001 ? spec.width / cosine : .infinity, sine > 0.001 ? spec.height / sine : .infinity)
        if extents.width > room, extents.width > 0 {
            cairo_set_font_size(cairo, spec.fontSize * room / extents.width)
            cairo_text_extents(cairo, spec.text, &extents)
        }
        cairo_translate(cairo, spec.width / 2, spec.height / 2)
        cairo_rotate(cairo, -radians)
        cairo_move_to(cairo, -extents.width / 2 - extents.x_bearing, -extents.height / 2 - extents.y_bearing)
        cairo_set_source_rgba(cairo, 0.55, 0.55, 0.55, spec.opacity)
        cairo_show_text(cairo, spec.text)
        cairo_show_page(cairo)
        cairo_surface_finish(surface)
        return cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    }
}
