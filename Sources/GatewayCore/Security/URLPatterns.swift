/// The operator's patterns for the URLs jobs may reach, on top of the SSRF rules: Gotenberg's
/// allow and deny lists (`--chromium-deny-list`, `--api-download-from-allow-list`, …) as one
/// pair for every URL we fetch — pages and what they load, `downloadFrom`, webhooks.
///
/// A pattern is a regular expression searched anywhere in the URL as written (as Go's
/// `MatchString` does in Gotenberg), so anchor it with `^` to match from the start. HTTPS loads
/// inside a page reach the vetting proxy as `CONNECT host:port`, so they are judged as
/// `https://host:port/`: a pattern on the path applies to the page itself, its plain-HTTP loads,
/// downloads and webhooks.
public struct URLPatterns: Sendable, Equatable {
    /// URLs matching any of these are refused.
    public var deny: [String] { compiled.deny.map(\.source) }
    /// When not empty, only URLs matching one of these are reached.
    public var only: [String] { compiled.only.map(\.source) }
    /// Compiled once, when the settings are read: every page load through the vetting proxy is
    /// checked against them.
    private let compiled: Compiled

    public init() {
        compiled = Compiled(deny: [], only: [])
    }

    /// Fails with the pattern's own parse error, so a typo is found when the server starts.
    public init(deny: [String] = [], only: [String] = []) throws(InvalidPattern) {
        func compile(_ patterns: [String]) throws(InvalidPattern) -> [Pattern] {
            var compiled: [Pattern] = []
            for source in patterns {
                do {
                    compiled.append(Pattern(source: source, regex: try Regex(source)))
                } catch {
                    throw InvalidPattern(pattern: source, reason: "\(error)")
                }
            }
            return compiled
        }
        compiled = Compiled(deny: try compile(deny), only: try compile(only))
    }

    /// Why the URL is refused, or nil when the patterns let it through.
    public func refusal(_ url: String) -> String? {
        if let pattern = compiled.deny.first(where: { url.contains($0.regex) }) {
            return "it matches the operator's deny pattern '\(pattern.source)'"
        }
        if !compiled.only.isEmpty, !compiled.only.contains(where: { url.contains($0.regex) }) {
            return "it matches none of the operator's URL patterns (\(only.map { "'\($0)'" }.joined(separator: ", ")))"
        }
        return nil
    }

    public static func == (lhs: URLPatterns, rhs: URLPatterns) -> Bool {
        lhs.deny == rhs.deny && lhs.only == rhs.only
    }

    private struct Pattern {
        var source: String
        var regex: Regex<AnyRegexOutput>
    }

    /// Immutable once made, so safe to share although `Regex` does not say `Sendable`.
    private final class Compiled: @unchecked Sendable {
        let deny: [Pattern]
        let only: [Pattern]

        init(deny: [Pattern], only: [Pattern]) {
            self.deny = deny
            self.only = only
        }
    }

    public struct InvalidPattern: Error, CustomStringConvertible {
        public var pattern: String
        public var reason: String
        public var description: String { "the URL pattern '\(pattern)' is not a regular expression: \(reason)" }
    }
}
