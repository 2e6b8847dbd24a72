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

    /// The same, appended to `bytes`: a JSON writer puts it straight into its output. The
    /// calendar date comes from Howard Hinnant's `civil_from_days`, plain integer arithmetic:
    /// `gmtime_r` took a lock and the time zone machinery for every date of a page.
    static func iso8601(_ date: Date, into bytes: inout [UInt8]) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds.floorDivided(by: 1000)
        let fraction = Int(milliseconds - seconds * 1000)
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        // Days since 0000-03-01 in eras of 400 years, so that leap days fall at a year's end.
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        // Written into 24 bytes on the stack and appended once: a byte at a time, each append
        // checked the array's capacity and uniqueness.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func put(_ value: Int, width: Int, at offset: Int) {
                var rest = value.magnitude  // a year before 0 prints its digits, as a later one does
                for index in (offset..<offset + width).reversed() {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, width: 4, at: 0)
            text[4] = UInt8(ascii: "-")
            put(month, width: 2, at: 5)
            text[7] = UInt8(ascii: "-")
            put(day, width: 2, at: 8)
            text[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, width: 2, at: 11)
            text[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, width: 2, at: 14)
            text[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, width: 2, at: 17)
            text[19] = UInt8(ascii: ".")
            put(fraction, width: 3, at: 20)
            text[23] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
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
