import Foundation

/// JSON as every adapter writes it: snake_case keys (spelled out by each type's `CodingKeys`),
/// RFC 3339 dates with milliseconds, slashes unescaped.
public enum WireJSON {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        return encoder
    }

    public static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon).timeZone(
                separator: .omitted
            )
        )
    }
}

/// `{"error": "<stable_code>", "error_message": "<human text>"}` (DESIGN §3).
public struct ErrorJSON: Encodable, Sendable {
    public var error: String
    public var errorMessage: String

    public init(error: String, errorMessage: String) {
        self.error = error
        self.errorMessage = errorMessage
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorMessage = "error_message"
    }
}
