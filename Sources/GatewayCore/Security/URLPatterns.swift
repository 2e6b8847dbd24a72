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
    public private(set) var deny: [String]
    /// When not empty, only URLs matching one of these are reached.
    public private(set) var only: [String]

    public init() {
        deny = []
        only = []
    }

    /// Fails with the pattern's own parse error, so a typo is found when the server starts.
    public init(deny: [String] = [], only: [String] = []) throws(InvalidPattern) {
        for pattern in deny + only {
            do { _ = try Regex(pattern) } catch { throw InvalidPattern(pattern: pattern, reason: "\(error)") }
        }
        self.deny = deny
        self.only = only
    }

    public var isEmpty: Bool { deny.isEmpty && only.isEmpty }

    /// Why the URL is refused, or nil when the patterns let it through.
    public func refusal(_ url: String) -> String? {
        if let pattern = deny.first(where: { Self.matches($0, url) }) {
            return "it matches the operator's deny pattern '\(pattern)'"
        }
        if !only.isEmpty, !only.contains(where: { Self.matches($0, url) }) {
            return "it matches none of the operator's URL patterns (\(only.map { "'\($0)'" }.joined(separator: ", ")))"
        }
        return nil
    }

    /// Compiled on each use: `Regex` is not `Sendable`, and a compile costs microseconds
    /// beside the fetch it guards.
    static func matches(_ pattern: String, _ url: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        return url.contains(regex)
    }

    public struct InvalidPattern: Error, CustomStringConvertible {
        public var pattern: String
        public var reason: String
        public var description: String { "the URL pattern '\(pattern)' is not a regular expression: \(reason)" }
    }
}
