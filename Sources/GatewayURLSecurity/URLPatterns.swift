/// What a fetched URL is for. Gotenberg keeps one allow and deny list per purpose
/// (`--chromium-allow-list`, `--api-download-from-deny-list`, `--webhook-allow-list`,
/// `--webhook-error-deny-list`), and a migrating operator's lists keep their reach here.
public enum URLPurpose: String, Sendable, CaseIterable {
    /// A page to convert and everything it loads.
    case page
    /// A file fetched into a request's form (`downloadFrom`).
    case download
    /// A webhook's result delivery.
    case webhook
    /// A webhook's error delivery.
    case webhookError
}

/// The operator's patterns for the URLs jobs may reach, on top of the SSRF rules: one pair
/// (`--deny-url`, `--only-url`) for every URL we fetch — pages and what they load,
/// `downloadFrom`, webhooks — and, under Gotenberg's flags, a pair per purpose on top.
///
/// A pattern is a regular expression searched anywhere in the URL as written (as Go's
/// `MatchString` does in Gotenberg), so anchor it with `^` to match from the start. HTTPS loads
/// inside a page reach the vetting proxy as `CONNECT host:port`, so they are judged as
/// `https://host:port/`: a pattern on the path applies to the page itself, its plain-HTTP loads,
/// downloads and webhooks.
public struct URLPatterns: Sendable, Equatable {
    /// URLs matching any of these are refused, whatever they are for.
    public var deny: [String] { general.deny.map(\.source) }
    /// When not empty, only URLs matching one of these are reached.
    public var only: [String] { general.only.map(\.source) }
    /// Compiled once, when the settings are read: every page load through the vetting proxy is
    /// checked against them.
    private var general = Compiled(deny: [], only: [])
    private var byPurpose: [URLPurpose: Compiled] = [:]

    public init() {}

    /// Fails with the pattern's own parse error, so a typo is found when the server starts.
    public init(deny: [String] = [], only: [String] = []) throws(InvalidPattern) {
        self = try URLPatterns().adding(deny: deny, only: only)
    }

    /// These patterns and more: for every purpose (nil), or for one.
    public func adding(deny: [String] = [], only: [String] = [], for purpose: URLPurpose? = nil) throws(InvalidPattern) -> URLPatterns {
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
        var copy = self
        let before = purpose.map { byPurpose[$0] ?? Compiled(deny: [], only: []) } ?? general
        let after = Compiled(deny: before.deny + (try compile(deny)), only: before.only + (try compile(only)))
        if let purpose { copy.byPurpose[purpose] = after } else { copy.general = after }
        return copy
    }

    /// Whether `url` matches one of `purpose`'s own allow patterns (Gotenberg's
    /// `--chromium-allow-list` and the like): an operator who names a URL there means it to be
    /// reached, private address or not, as Gotenberg takes it.
    public func explicitlyAllows(_ url: String, for purpose: URLPurpose?) -> Bool {
        guard let purpose, let scoped = byPurpose[purpose] else { return false }
        return scoped.only.contains { url.contains($0.regex) }
    }

    /// The patterns for one purpose alone, e.g. `deny(for: .page)`.
    public func deny(for purpose: URLPurpose) -> [String] { byPurpose[purpose]?.deny.map(\.source) ?? [] }
    public func only(for purpose: URLPurpose) -> [String] { byPurpose[purpose]?.only.map(\.source) ?? [] }

    /// Why the URL is refused, or nil when the patterns let it through: the general pair, then
    /// the pair of `purpose`, each named in the answer.
    public func refusal(_ url: String, for purpose: URLPurpose? = nil) -> String? {
        if let reason = general.refusal(url, named: "the operator's") { return reason }
        guard let purpose, let scoped = byPurpose[purpose] else { return nil }
        return scoped.refusal(url, named: "the operator's \(purpose.rawValue)")
    }

    public static func == (lhs: URLPatterns, rhs: URLPatterns) -> Bool {
        lhs.deny == rhs.deny && lhs.only == rhs.only
            && URLPurpose.allCases.allSatisfy { lhs.deny(for: $0) == rhs.deny(for: $0) && lhs.only(for: $0) == rhs.only(for: $0) }
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

        func refusal(_ url: String, named owner: String) -> String? {
            if let pattern = deny.first(where: { url.contains($0.regex) }) {
                return "it matches \(owner) deny pattern '\(pattern.source)'"
            }
            if !only.isEmpty, !only.contains(where: { url.contains($0.regex) }) {
                return "it matches none of \(owner) URL patterns (\(only.map { "'\($0.source)'" }.joined(separator: ", ")))"
            }
            return nil
        }
    }

    public struct InvalidPattern: Error, CustomStringConvertible {
        public var pattern: String
        public var reason: String
        public var description: String { "the URL pattern '\(pattern)' is not a regular expression: \(reason)" }
    }
}
