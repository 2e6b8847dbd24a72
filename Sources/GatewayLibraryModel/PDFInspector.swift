/// A page-1 PNG to render while inspecting.
public struct ThumbnailRequest: Sendable, Equatable, Codable {
    /// Absolute path the PNG is written to (replaced if present).
    public var outputPath: String
    /// Width in pixels; the height follows the page's aspect ratio.
    public var width: Int

    public init(outputPath: String, width: Int) {
        self.outputPath = outputPath
        self.width = width
    }
}

/// Reads a PDF's facts; the one port through which the engine trusts a file is a PDF.
public protocol PDFInspector: Sendable {
    /// Inspects the file at `path` (absolute), optionally rendering a thumbnail of page 1.
    /// Throws `InspectionError` when the file is not a usable PDF or inspection ran out of bounds.
    func inspect(path: String, thumbnail: ThumbnailRequest?) async throws -> PDFInfo
    /// Inspects as above and also writes the pages' text to `textOutputPath` (absolute,
    /// replaced), for the search index. An inspector that cannot read text returns `text: nil`.
    func inspect(path: String, thumbnail: ThumbnailRequest?, textOutputPath: String?) async throws -> PDFInspection
}

extension PDFInspector {
    public func inspect(path: String) async throws -> PDFInfo {
        try await inspect(path: path, thumbnail: nil)
    }

    /// Inspectors without text extraction: the facts only.
    public func inspect(path: String, thumbnail: ThumbnailRequest?, textOutputPath: String?) async throws -> PDFInspection {
        PDFInspection(info: try await inspect(path: path, thumbnail: thumbnail))
    }
}
