/// What Go's `encoding/json` says of text it cannot unmarshal, word for word, so a refusal of a
/// Gotenberg form field (`metadata`, `bookmarks`, `extraHttpHeaders`…) reads as Gotenberg's:
/// `unmarshal metadata: invalid character 'x' looking for beginning of value`. The syntax errors
/// are its scanner's (`encoding/json/scanner.go`); a well-formed value of the wrong kind at the
/// top is its `UnmarshalTypeError` (`json: cannot unmarshal array into Go value of type …`).
enum GoJSONError {
    /// The kind of value a field is unmarshalled into, named as Go prints its type.
    enum Target {
        case object(goType: String)
        case array(goType: String)

        var goType: String {
            switch self {
            case .object(let name), .array(let name): name
            }
        }
    }

    /// Go's message for `text` unmarshalled into `target`, or nil when Go would take it (a
    /// deeper mismatch is left to the caller's own check).
    static func message(for text: String, into target: Target) -> String? {
        let bytes = Array(text.utf8)
        if let syntax = syntaxError(bytes) { return syntax }
        guard let first = bytes.first(where: { !isSpace($0) }) else { return nil }
        let kind: String
        switch first {
        case UInt8(ascii: "{"): kind = "object"
        case UInt8(ascii: "["): kind = "array"
        case UInt8(ascii: "\""): kind = "string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = "bool"
        case UInt8(ascii: "n"): return nil  // null leaves the value as it was
        default: kind = "number"
        }
        switch (target, kind) {
        case (.object, "object"), (.array, "array"): return nil
        default: return "json: cannot unmarshal \(kind) into Go value of type \(target.goType)"
        }
    }

    // MARK: - The scanner

    private enum Context {
        case objectKey, objectValue, array
    }

    /// The first syntax error Go's scanner reports, or nil for well-formed JSON.
    static func syntaxError(_ bytes: [UInt8]) -> String? {
        var index = 0
        var stack: [Context] = []
        func skipSpace() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }
        func invalid(_ byte: UInt8, _ context: String) -> String { "invalid character \(quoteChar(byte)) \(context)" }
        let end = "unexpected end of JSON input"

        // One value at `index`: a scalar whole, or the opening of a container (pushed).
        func value() -> String? {
            skipSpace()
            guard index < bytes.count else { return end }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                index += 1
                skipSpace()
                guard index < bytes.count else { return end }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return nil
                }
                guard bytes[index] == UInt8(ascii: "\"") else { return invalid(bytes[index], "looking for beginning of object key string") }
                stack.append(.objectKey)
                return string()
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                guard index < bytes.count else { return end }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return nil
                }
                stack.append(.array)
                return value()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return invalid(byte, "looking for beginning of value")
            }
        }

        func string() -> String? {
            index += 1  // the opening quote
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return nil
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return end }
                    let escaped = bytes[index]
                    index += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard index < bytes.count else { return end }
                            guard isHex(bytes[index]) else { return invalid(bytes[index], "in \\u hexadecimal character escape") }
                            index += 1
                        }
                    } else if !Array("bfnrt\\/\"".utf8).contains(escaped) {
                        return invalid(escaped, "in string escape code")
                    }
                case 0..<0x20: return invalid(byte, "in string literal")
                default: continue
                }
            }
            return end
        }

        func number() -> String? {
            if bytes[index] == UInt8(ascii: "-") {
                index += 1
                guard index < bytes.count else { return end }
                guard isDigit(bytes[index]) else { return invalid(bytes[index], "in numeric literal") }
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count else { return end }
                guard isDigit(bytes[index]) else { return invalid(bytes[index], "after decimal point in numeric literal") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count else { return end }
                guard isDigit(bytes[index]) else { return invalid(bytes[index], "in exponent of numeric literal") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            return nil
        }

        func literal(_ word: String) -> String? {
            let letters = Array(word.utf8)
            index += 1
            for expected in letters.dropFirst() {
                guard index < bytes.count else { return end }
                guard bytes[index] == expected else {
                    return invalid(bytes[index], "in literal \(word) (expecting \(quoteChar(expected)))")
                }
                index += 1
            }
            return nil
        }

        if let error = value() { return error }
        // After each value: what its container (or the top) lets follow.
        while true {
            skipSpace()
            guard let context = stack.last else {
                guard index < bytes.count else { return nil }
                return invalid(bytes[index], "after top-level value")
            }
            guard index < bytes.count else { return end }
            let byte = bytes[index]
            index += 1
            switch context {
            case .objectKey:
                guard byte == UInt8(ascii: ":") else { return invalid(byte, "after object key") }
                stack[stack.count - 1] = .objectValue
                if let error = value() { return error }
            case .objectValue:
                if byte == UInt8(ascii: "}") {
                    stack.removeLast()
                } else if byte == UInt8(ascii: ",") {
                    skipSpace()
                    guard index < bytes.count else { return end }
                    guard bytes[index] == UInt8(ascii: "\"") else { return invalid(bytes[index], "looking for beginning of object key string") }
                    stack[stack.count - 1] = .objectKey
                    if let error = string() { return error }
                } else {
                    return invalid(byte, "after object key:value pair")
                }
            case .array:
                if byte == UInt8(ascii: "]") {
                    stack.removeLast()
                } else if byte == UInt8(ascii: ",") {
                    if let error = value() { return error }
                } else {
                    return invalid(byte, "after array element")
                }
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Go's `quoteChar`: the byte as a rune in single quotes, escaped as `strconv.Quote` does.
    static func quoteChar(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "'"): return "'\\''"
        case UInt8(ascii: "\""): return "'\"'"
        case 0x07: return "'\\a'"
        case 0x08: return "'\\b'"
        case 0x0C: return "'\\f'"
        case 0x0A: return "'\\n'"
        case 0x0D: return "'\\r'"
        case 0x09: return "'\\t'"
        case 0x0B: return "'\\v'"
        case UInt8(ascii: "\\"): return "'\\\\'"
        case 0..<0x20, 0x7F: return "'\\x" + hex(byte) + "'"
        case 0x80..<0xA0: return "'\\u00" + hex(byte) + "'"
        default: return "'" + String(Character(Unicode.Scalar(byte))) + "'"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
