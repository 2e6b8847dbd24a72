import Foundation
import GatewayJobModel

/// Gotenberg's JSON-valued Chromium fields whose shape is Gotenberg's own (`cookies`,
/// `extraHttpHeaders` with its `; scope=` tokens), read into our options with Gotenberg's
/// refusals (`pkg/modules/chromium/routes.go`).
extension GotenbergFields {
    /// `cookies`: `[{"name","value","domain","path","secure","httpOnly","sameSite"}]`, set in
    /// the page's browser context before it loads, as Gotenberg does. `sameSite` in any case;
    /// name, value and domain required.
    mutating func cookies() -> [BrowserOptions.Cookie]? {
        guard let text = string("cookies") else { return nil }
        if let error = GoJSONError.message(for: text, into: .array(goType: "[]chromium.Cookie")) {
            invalid("cookies", text, "unmarshal cookies: \(error)")
            return nil
        }
        guard let items = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any] else { return nil }
        var cookies: [BrowserOptions.Cookie] = []
        var missing: [String] = []
        for (index, item) in items.enumerated() {
            let object = item as? [String: Any] ?? [:]
            let text = { (key: String) in (object[key] as? String) ?? "" }
            if [text("name"), text("value"), text("domain")].contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                missing.append("cookie \(index) must have its name, value and domain set")
                continue
            }
            let sameSite = (object["sameSite"] as? String).flatMap { value in
                BrowserOptions.Cookie.SameSite.allCases.first { $0.rawValue.lowercased() == value.lowercased() }
            }
            if let given = object["sameSite"] as? String, !given.isEmpty, sameSite == nil {
                missing.append("cookie \(index) has sameSite '\(given)'; expected Strict, Lax or None")
                continue
            }
            cookies.append(
                BrowserOptions.Cookie(
                    name: text("name"),
                    value: text("value"),
                    domain: text("domain"),
                    path: object["path"] as? String,
                    secure: object["secure"] as? Bool,
                    httpOnly: object["httpOnly"] as? Bool,
                    sameSite: sameSite
                )
            )
        }
        if !missing.isEmpty {
            invalid("cookies", text, missing.joined(separator: "\n"))
            return nil
        }
        return cookies
    }

    /// `extraHttpHeaders`: an object of header values, each maybe ending `; scope=REGEX` (the
    /// URLs it is sent to). Our options take one scope for every header: headers of one scope
    /// (or none) are taken, several different scopes are refused by name.
    mutating func extraHeaders() -> (headers: [String: String], scope: String?)? {
        guard let text = string("extraHttpHeaders") else { return nil }
        if let error = GoJSONError.message(for: text, into: .object(goType: "map[string]string")) {
            invalid("extraHttpHeaders", text, "unmarshal extraHttpHeaders: \(error)")
            return nil
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
        var headers: [String: String] = [:]
        var scopes: Set<String> = []
        for (name, raw) in object {
            guard let value = raw as? String else {
                invalid(
                    "extraHttpHeaders",
                    text,
                    "unmarshal extraHttpHeaders: json: cannot unmarshal \(Self.goKind(raw)) into Go value of type string"
                )
                return nil
            }
            var kept: [String] = []
            var scope: String?
            for token in value.split(separator: ";", omittingEmptySubsequences: false) {
                let bare = token.filter { !$0.isWhitespace }
                // Gotenberg's reading: a token that starts with `scope` must be `scope=<pattern>`.
                if bare.lowercased().hasPrefix("scope") {
                    let parts = bare.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard parts.count == 2, parts[0].lowercased() == "scope", !parts[1].isEmpty else {
                        invalid("extraHttpHeaders", text, "invalid scope '\(scope ?? "")' for header '\(name)'")
                        return nil
                    }
                    scope = String(parts[1])
                } else if !token.isEmpty {
                    kept.append(String(token))
                }
            }
            if let scope {
                // Compiled as the page watch compiles it to match requests.
                if (try? NSRegularExpression(pattern: scope)) == nil {
                    // regexp2's words, which Gotenberg passes on.
                    let code = "*+?".contains(scope.first ?? " ") ? "missing argument to repetition operator" : "invalid pattern"
                    invalid("extraHttpHeaders", text, "invalid scope regex pattern for header '\(name)': error parsing regexp: \(code) in `\(scope)`")
                    return nil
                }
                scopes.insert(scope)
            }
            headers[name] = kept.joined(separator: ";").trimmingCharacters(in: .whitespaces)
        }
        guard scopes.count <= 1 else {
            invalid(
                "extraHttpHeaders",
                text,
                "pdfgate sends every extra header to one scope; these name \(scopes.count): \(scopes.sorted().joined(separator: ", "))"
            )
            return nil
        }
        return (headers, scopes.first)
    }

    /// A JSON field Go unmarshals into `target` (`failOnHttpStatusCodes`…), refused in Go's words.
    mutating func goJSON<T: Decodable>(_ key: String, as type: T.Type, into target: GoJSONError.Target) -> T? {
        guard let text = string(key) else { return nil }
        if let error = GoJSONError.message(for: text, into: target) {
            invalid(key, text, "unmarshal \(key): \(error)")
            return nil
        }
        return json(key, as: type)
    }

    private static func goKind(_ value: Any) -> String {
        switch value {
        case is [Any]: "array"
        case is [String: Any]: "object"
        case is NSNull: "null"
        default: "number"
        }
    }
}
