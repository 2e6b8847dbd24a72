import Foundation

/// Parses the one spelling GRDB stores a `Date` in — `yyyy-MM-dd HH:mm:ss.SSS`, UTC — without
/// a `Calendar`. GRDB's general parser goes through `DateComponents` and `Calendar`, which cost
/// more than the rest of a row; a page of 50 documents has 150 dates.
enum StoredDate {
    /// The date, or nil for any other spelling (the caller falls back to GRDB's parser).
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 23, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ".")
            else { return nil }
            func number(_ from: Int, _ count: Int) -> Int? {
                var value = 0
                for index in from..<from + count {
                    let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            let days = daysFromCivil(year: year, month: month, day: day)
            let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
            var date = Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1000)
            // GRDB's formatter floors to milliseconds: make sure this date formats back to the
            // same text (list cursors compare it against the column), not to one millisecond less.
            let stored = Double(seconds * 1000 + millisecond)
            while (date.timeIntervalSince1970 * 1000).rounded(.down) < stored {
                date = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.nextUp)
            }
            return date
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
