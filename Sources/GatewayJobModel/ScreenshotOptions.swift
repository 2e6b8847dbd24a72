import Foundation

/// What a `SCREENSHOT` job captures of its page (Gotenberg's `/forms/chromium/screenshot/…`):
/// the viewport it lays the page out in, the format, and what part of the page is taken.
public struct ScreenshotOptions: Sendable, Equatable, Codable {
    public enum Format: String, Sendable, Codable, CaseIterable {
        case png, jpeg, webp

        public var mediaType: String { "image/" + rawValue }

        /// Whether `bytes` begin as a file of this format does, so a converter's output is
        /// checked like a PDF's is.
        public func matches(_ bytes: some Collection<UInt8>) -> Bool {
            let head = Array(bytes.prefix(12))
            switch self {
            case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            case .jpeg: return head.starts(with: [0xFF, 0xD8, 0xFF])
            case .webp: return head.count == 12 && head.starts(with: Array("RIFF".utf8)) && head[8...].elementsEqual("WEBP".utf8)
            }
        }
    }

    public var format: Format
    /// The viewport in CSS pixels; with `clip`, also the size of the image.
    public var width: Int
    public var height: Int
    /// Only the viewport, not the whole page below it.
    public var clip: Bool
    /// Only the first element matching this CSS selector.
    public var selector: String?
    /// JPEG quality, 0 to 100; other formats ignore it.
    public var quality: Int
    public var optimizeForSpeed: Bool
    public var deviceScaleFactor: Double

    /// Gotenberg's defaults: an 800 × 600 viewport, the whole page, PNG.
    public init(
        format: Format = .png,
        width: Int = 800,
        height: Int = 600,
        clip: Bool = false,
        selector: String? = nil,
        quality: Int = 100,
        optimizeForSpeed: Bool = false,
        deviceScaleFactor: Double = 1
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.clip = clip
        self.selector = selector
        self.quality = quality
        self.optimizeForSpeed = optimizeForSpeed
        self.deviceScaleFactor = deviceScaleFactor
    }

    enum CodingKeys: String, CodingKey {
        case format, width, height, clip, selector, quality
        case optimizeForSpeed = "optimize_for_speed"
        case deviceScaleFactor = "device_scale_factor"
    }

    /// Bounds that keep one capture within memory: Chromium allocates the whole bitmap.
    public static let maxPixels = 16_384

    /// What is wrong with these options, or nil.
    public var problem: String? {
        if !(1...Self.maxPixels).contains(width) { return "width must be from 1 to \(Self.maxPixels) pixels, not \(width)" }
        if !(1...Self.maxPixels).contains(height) { return "height must be from 1 to \(Self.maxPixels) pixels, not \(height)" }
        if !(0...100).contains(quality) { return "quality must be from 0 to 100, not \(quality)" }
        if !(deviceScaleFactor > 0 && deviceScaleFactor <= 4) { return "deviceScaleFactor must be above 0 and at most 4, not \(deviceScaleFactor)" }
        if let selector, selector.isEmpty || selector.unicodeScalars.count > 1024 { return "selector must be a CSS selector of 1 to 1024 characters" }
        return nil
    }
}
