import Foundation

/// What `tesseract IMAGE - --psm 0` (orientation and script detection) prints:
///
///     Page number: 0
///     Orientation in degrees: 180
///     Rotate: 180
///     Orientation confidence: 12.65
///     Script: Latin
///     Script confidence: 2.02
struct OrientationReport: Equatable {
    /// Degrees clockwise that turn the image upright: what its page's `/Rotate` becomes.
    var rotation: Int
    var confidence: Double

    /// Below this, Tesseract is guessing: a page with few letters, or none.
    static let minimumConfidence = 2.0

    /// Nil when the text is not such a report, or when its guess is not confident enough to act on.
    init?(_ text: String) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let rotate = values["Rotate"].flatMap({ Int($0) }), [0, 90, 180, 270].contains(rotate),
            let confidence = values["Orientation confidence"].flatMap({ Double($0) }), confidence >= Self.minimumConfidence
        else { return nil }
        self.rotation = rotate
        self.confidence = confidence
    }
}
