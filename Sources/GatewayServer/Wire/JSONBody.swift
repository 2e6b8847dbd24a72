import Foundation
import GatewayHTTPServing

/// The checks every JSON body gets before its route reads it, so that each route refuses the
/// same things in the same words: a body nested too deep, and a key the route does not take.
enum JSONBody {
    /// Deeper than any request of this API (the deepest, a job's cookies, is 4) and far below
    /// what the parsers stand (Foundation's stops at 512 and says only "not valid JSON").
    static let maxDepth = 64

    /// Refuses a body nested deeper than `maxDepth`, counted without parsing it.
    static func checkDepth(_ data: Data) throws(APIError) {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxDepth {
                    throw APIError(
                        .badRequest,
                        "invalid_json",
                        "the JSON body is nested more than \(maxDepth) levels deep; no request of this API needs more than a few"
                    )
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }

    /// Refuses a top-level key outside `allowed`, naming it and the keys the route takes: a
    /// misspelt `callback_ur1` must not be dropped in silence. A body that is not a JSON
    /// object passes, for the route's own reading to refuse with its own words.
    static func checkKeys(_ data: Data, allowed: Set<String>, route: String) throws(APIError) {
        guard let keys = try? JSONDecoder().decode(TopLevelKeys.self, from: data).keys else { return }
        try checkKeys(keys, allowed: allowed, route: route)
    }

    /// The same, for an object already parsed.
    static func checkKeys(_ keys: some Sequence<String>, allowed: Set<String>, route: String) throws(APIError) {
        if let unknown = keys.filter({ !allowed.contains($0) }).sorted().first {
            throw APIError(
                .badRequest,
                "unknown_field",
                "\(route) does not take \"\(unknown)\"; it takes \(allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
            )
        }
    }

    private struct TopLevelKeys: Decodable {
        let keys: [String]

        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
