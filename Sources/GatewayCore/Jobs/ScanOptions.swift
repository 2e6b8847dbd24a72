import Foundation

/// How a `SCAN_TO_PDF` job makes its pages: on the wire they sit flat in `options`, beside the
/// paper size (`paper_width`/`paper_height`, which fit every image into that paper instead of
/// sizing each page to its image's DPI). Every field is optional; nil means no.
public struct ScanOptions: Sendable, Equatable, Codable {
    /// Straighten pages photographed or fed at a slant (ImageMagick's deskew). It re-encodes
    /// the page it turns: that page's JPEG is no longer the one sent.
    public var deskew: Bool?
    /// Turn pages that lie sideways or upside down upright, as Tesseract reads their text; the
    /// page is turned (`/Rotate`), its image kept as it is.
    public var autoRotate: Bool?

    public init(deskew: Bool? = nil, autoRotate: Bool? = nil) {
        self.deskew = deskew
        self.autoRotate = autoRotate
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case deskew
        case autoRotate = "auto_rotate"
    }

    /// The wire names of the options that are set, in documentation order.
    public var setKeys: [String] {
        let values: [(CodingKeys, Any?)] = [(.deskew, deskew), (.autoRotate, autoRotate)]
        return values.filter { $0.1 != nil }.map(\.0.rawValue)
    }
}
