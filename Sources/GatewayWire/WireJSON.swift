import Foundation
import Glibc

#if canImport(Glibc)
#endif

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

    /// `2026-11-22T07:56:26.430Z`. Written by hand: Foundation's ISO 8601 format style costs
    /// microseconds per date on Linux, and a page of 50 documents has 200 dates.
    public static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        iso8601(date, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same, appended to `bytes`: a JSON writer puts it straight into its output.
    static func iso8601(_ date: Date, into bytes: inout [UInt8]) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "."))
        digits(fraction, 3)
        bytes.append(UInt8(ascii: "Z"))
    }
}

/// `{"error": "<stable_code>", "error_message": "<human text>"}` (DESIGN §3).
extension Int64 {
    /// Rounds toward negative infinity, so dates before 1970 keep a positive fraction.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}

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
