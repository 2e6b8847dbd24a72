import Foundation

extension PDFOperation.Watermark {
    /// Over the page's content (a stamp), or under it, where anything opaque on the page hides it
    /// (a watermark, as pdfcpu lays Gotenberg's).
    public enum Layer: String, Sendable, Equatable, CaseIterable {
        case over, under
    }

    /// Which point of the page the mark's box is anchored to, as pdfcpu's `position` names them.
    public enum Position: String, Sendable, Equatable, CaseIterable {
        case center
        case topLeft = "top_left"
        case top
        case topRight = "top_right"
        case left, right
        case bottomLeft = "bottom_left"
        case bottom
        case bottomRight = "bottom_right"
    }

    /// How big the mark is drawn.
    public enum Sizing: String, Sendable, Equatable, CaseIterable {
        /// Ours: text at `fontSize`, shrunk to fit the page; an image or PDF `scale` of the
        /// page's width, never wider or taller than the page.
        case fit
        /// pdfcpu's `rel`: a mark wider than tall `scale` of the page's width, else `scale` of
        /// its height (so text takes that share whatever its `fontSize`).
        case relative
        /// pdfcpu's `abs`: the mark's own size (text at `fontSize`, a PNG one point a pixel, a
        /// PDF its page) times `scale`.
        case absolute
    }

    /// pdfcpu's default angle: along the page's diagonal, instead of `angle`.
    public enum Diagonal: String, Sendable, Equatable, CaseIterable {
        /// From the lower left corner to the upper right.
        case up
        /// From the upper left corner to the lower right.
        case down
    }

    /// How text's glyphs are painted, as PDF's text render modes 0, 1 and 2.
    public enum RenderMode: String, Sendable, Equatable, CaseIterable {
        case fill, stroke
        case fillStroke = "fill_stroke"
    }

    /// An sRGB colour, each part 0…1.
    public struct Color: Sendable, Equatable {
        public var red: Double
        public var green: Double
        public var blue: Double

        public init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// Ours when none is asked: a mid grey.
        public static let ourGrey = Color(red: 0.55, green: 0.55, blue: 0.55)
        /// pdfcpu's default, `gray`.
        public static let pdfcpuGray = Color(red: 0.5, green: 0.5, blue: 0.5)

        /// `#RRGGBB`, or nil for anything else.
        public init?(hex: String) {
            guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
            self.init(red: Double(value >> 16 & 0xFF) / 255, green: Double(value >> 8 & 0xFF) / 255, blue: Double(value & 0xFF) / 255)
        }

        /// `#RRGGBB`, as the wire form writes it.
        public var hex: String {
            let parts = [red, green, blue].map { Int(($0 * 255).rounded()) }
            return "#" + parts.map { String(format: "%02X", $0) }.joined()
        }
    }

    /// One of the three families of PDF's standard fonts (fontconfig draws them with the
    /// metric-compatible Nimbus fonts), in its weight and slant.
    public struct Font: Sendable, Equatable {
        public enum Family: String, Sendable, CaseIterable {
            case helvetica = "Helvetica"
            case times = "Times"
            case courier = "Courier"
        }

        public var family: Family
        public var bold: Bool
        public var italic: Bool

        public init(family: Family, bold: Bool = false, italic: Bool = false) {
            self.family = family
            self.bold = bold
            self.italic = italic
        }

        /// pdfcpu's default.
        public static let helvetica = Font(family: .helvetica)

        /// Every name taken, as PDF spells the standard fonts.
        public static let names: [String] = Family.allCases.flatMap { family in
            [false, true].flatMap { bold in [false, true].map { italic in Font(family: family, bold: bold, italic: italic).name } }
        }

        /// `Helvetica-BoldOblique`, `Times-Roman`, `Courier-Bold`… (PDF's names), or nil.
        public init?(name: String) {
            guard let font = Self.names.lazy.map({ Font(parsing: $0) }).first(where: { $0.name.lowercased() == name.lowercased() }) else {
                return nil
            }
            self = font
        }

        private init(parsing name: String) {
            let family = Family.allCases.first { name.hasPrefix($0.rawValue) } ?? .helvetica
            self.init(family: family, bold: name.contains("Bold"), italic: name.contains("Oblique") || name.contains("Italic"))
        }

        /// PDF's name of the font.
        public var name: String {
            let slant = family == .times ? "Italic" : "Oblique"
            switch (bold, italic) {
            case (false, false): return family == .times ? "Times-Roman" : family.rawValue
            case (true, false): return family.rawValue + "-Bold"
            case (false, true): return family.rawValue + "-" + slant
            case (true, true): return family.rawValue + "-Bold" + slant
            }
        }
    }
}
