import Foundation

/// The file name in a `Content-Disposition` header: `filename*=UTF-8''…` (RFC 6266/5987)
/// wins over plain `filename=`, quoted or not. Only the last path component is kept.
enum ContentDisposition {
    static func filename(_ header: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(header) {
            switch parameter.name {
            case "filename*":
                // charset'language'percent-encoded
                let parts = parameter.value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0].lowercased() == "utf-8" { extended = String(parts[2]).removingPercentEncoding }
            case "filename": plain = parameter.value
            default: break
            }
        }
        guard let name = extended ?? plain else { return nil }
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        return last.isEmpty ? nil : last
    }

    /// `name=value` pairs after the first `;`, values unquoted (with `\"` escapes).
    static func parameters(_ header: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var rest = Substring(header)
        guard let first = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: first)...]
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == ";" || $0 == "\t" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop(while: { $0 == " " })
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.drop(while: { $0 != ";" })
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result.append((name, value))
        }
        return result
    }
}
