import Foundation

/// Parsing of `value; name=token; name="quoted"` header values (RFC 9110 §5.6.6).
enum HeaderValue {
    /// Header bytes as text: UTF-8 (what browsers send for non-ASCII file names), else ISO-8859-1.
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        var iterator = bytes.makeIterator()
        var utf8 = UTF8()
        while true {
            switch utf8.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
            }
        }
    }

    static func trim(_ text: some StringProtocol) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    /// Splits `text` into its leading value and its parameters (names lowercased, first one wins).
    /// Quoted values may escape `"` and `\` with a backslash; any other backslash is kept, since
    /// browsers do not escape the ones in Windows paths.
    static func split(_ text: String) -> (value: String, parameters: [String: String]) {
        let bytes = Array(text.utf8)
        var index = 0
        func take(while predicate: (UInt8) -> Bool) -> String {
            let start = index
            while index < bytes.count, predicate(bytes[index]) { index += 1 }
            return trim(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        let value = take { $0 != Byte.semicolon }
        var parameters: [String: String] = [:]
        while index < bytes.count {
            index += 1  // the `;`
            let name = take { $0 != Byte.equals && $0 != Byte.semicolon }.lowercased()
            var parameter = ""
            if index < bytes.count, bytes[index] == Byte.equals {
                index += 1
                while index < bytes.count, bytes[index] == Byte.space || bytes[index] == Byte.tab { index += 1 }
                if index < bytes.count, bytes[index] == Byte.quote {
                    index += 1
                    var unquoted: [UInt8] = []
                    while index < bytes.count, bytes[index] != Byte.quote {
                        if bytes[index] == Byte.backslash, index + 1 < bytes.count,
                            bytes[index + 1] == Byte.quote || bytes[index + 1] == Byte.backslash
                        {
                            index += 1
                        }
                        unquoted.append(bytes[index])
                        index += 1
                    }
                    parameter = String(decoding: unquoted, as: UTF8.self)
                    _ = take { $0 != Byte.semicolon }  // the closing quote and anything up to the next `;`
                } else {
                    parameter = take { $0 != Byte.semicolon }
                }
            }
            if !name.isEmpty, parameters[name] == nil { parameters[name] = parameter }
        }
        return (value, parameters)
    }

    /// An RFC 5987 `charset'language'percent-encoded` value; `nil` when malformed or in another charset.
    static func decodeExtended(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var encoded = Array(parts[2].utf8)[...]
        while let byte = encoded.popFirst() {
            guard byte == Byte.percent else {
                bytes.append(byte)
                continue
            }
            guard encoded.count >= 2, let high = hexValue(encoded.removeFirst()), let low = hexValue(encoded.removeFirst()) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        switch parts[0].lowercased() {
        case "utf-8":
            let text = String(decoding: bytes, as: UTF8.self)
            return text.utf8.elementsEqual(bytes) ? text : nil  // invalid UTF-8 would have been replaced
        case "iso-8859-1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
