import Foundation

/// Where a watermark's mark goes on a page: how much its natural size is scaled, how far it is
/// turned, and where its centre lands. One computation for the three kinds of mark, so the cairo
/// helper (text, PNG) and the PDF placement (`PDFStampPlacement`) agree; pdfcpu's rules where the
/// watermark asks for them (`Sizing.relative`/`.absolute`, `diagonal`, `position`, `offset`).
public struct StampGeometry: Sendable, Equatable {
    /// Multiplies the mark's natural width and height.
    public var factor: Double
    /// Degrees, counter-clockwise.
    public var angle: Double
    /// The mark's centre, in points from the page's lower left corner (PDF's user space).
    public var centerX: Double
    public var centerY: Double

    /// What decides the geometry, in the form the helper's command line carries too.
    public struct Request: Sendable, Equatable, Codable {
        public var sizing: String
        public var scale: Double
        public var angle: Double
        public var diagonal: String?
        public var position: String
        public var offsetX: Double
        public var offsetY: Double

        public init(_ mark: PDFOperation.Watermark) {
            sizing = mark.sizing.rawValue
            scale = mark.scale
            angle = mark.angle
            diagonal = mark.diagonal?.rawValue
            position = mark.position.rawValue
            offsetX = mark.offsetX
            offsetY = mark.offsetY
        }
    }

    /// The geometry of a mark `width`×`height` points (text at its font size) on a page
    /// `pageWidth`×`pageHeight`. `isText` picks `Sizing.fit`'s rule: text shrinks to fit along
    /// its angle, an image or PDF takes a share of the page's width.
    public init(_ request: Request, width: Double, height: Double, pageWidth: Double, pageHeight: Double, isText: Bool) {
        let (width, height) = (max(width, 0.001), max(height, 0.001))
        var angle = request.angle
        if let diagonal = request.diagonal {
            // pdfcpu: the page's diagonal, turned a quarter back for a mark taller than wide.
            angle = atan(pageHeight / pageWidth) * 180 / .pi
            if width / height < 1 { angle -= 90 }
            if diagonal == PDFOperation.Watermark.Diagonal.down.rawValue { angle = -angle }
        }
        let radians = angle * .pi / 180
        let (cosine, sine) = (abs(cos(radians)), abs(sin(radians)))
        switch PDFOperation.Watermark.Sizing(rawValue: request.sizing) ?? .fit {
        case .fit where isText:
            // Text longer than the page has room for along its angle (90% of it) is made smaller.
            let room = 0.9 * min(cosine > 0.001 ? pageWidth / cosine : .infinity, sine > 0.001 ? pageHeight / sine : .infinity)
            factor = width > room ? room / width : 1
        case .fit:
            let turnedWidth = width * cosine + height * sine
            let turnedHeight = width * sine + height * cosine
            factor = min(pageWidth * request.scale / width, 0.9 * pageWidth / turnedWidth, 0.9 * pageHeight / turnedHeight)
        case .relative:
            factor = width >= height ? request.scale * pageWidth / width : request.scale * pageHeight / height
        case .absolute:
            factor = request.scale
        }
        self.angle = angle
        // pdfcpu anchors the unturned box, except a quarter turn off the centre, which it lines
        // up with the page's edges: the turned box then.
        var (boxWidth, boxHeight) = (width * factor, height * factor)
        let position = PDFOperation.Watermark.Position(rawValue: request.position) ?? .center
        if abs(abs(angle) - 90) < 0.001, position != .center { swap(&boxWidth, &boxHeight) }
        let (left, middle, right) = (0.0, (pageWidth - boxWidth) / 2, pageWidth - boxWidth)
        let (bottom, center, top) = (0.0, (pageHeight - boxHeight) / 2, pageHeight - boxHeight)
        let corner: (Double, Double) =
            switch position {
            case .center: (middle, center)
            case .topLeft: (left, top)
            case .top: (middle, top)
            case .topRight: (right, top)
            case .left: (left, center)
            case .right: (right, center)
            case .bottomLeft: (left, bottom)
            case .bottom: (middle, bottom)
            case .bottomRight: (right, bottom)
            }
        centerX = corner.0 + boxWidth / 2 + request.offsetX
        centerY = corner.1 + boxHeight / 2 + request.offsetY
    }

    /// The PDF matrix (`a b c d e f cm`) that draws a box `x`, `y`, `width`, `height` (in its own
    /// space) scaled, turned and centred as this geometry says.
    public func matrix(x: Double, y: Double, width: Double, height: Double) -> [Double] {
        let radians = angle * .pi / 180
        let (a, b) = (factor * cos(radians), factor * sin(radians))
        let (c, d) = (-b, a)
        let (midX, midY) = (x + width / 2, y + height / 2)
        return [a, b, c, d, centerX - (a * midX + c * midY), centerY - (b * midX + d * midY)]
    }
}
