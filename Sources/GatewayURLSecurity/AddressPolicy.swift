import GatewayJobModel

/// Which addresses outbound requests on a client's behalf may reach (SSRF rules, DESIGN §4).
public enum AddressPolicy {
    /// Why an address is off limits, or nil when it is a public unicast address.
    ///
    /// `privateAllowed` is Gotenberg's permissive default (`pdfgate gotenberg` without its
    /// `*-deny-private-ips` flags): loopback and private networks may be reached, a service
    /// beside the gateway on its compose network included. Link-local addresses and the clouds'
    /// metadata services stay refused even then: they hand out a machine's credentials, and no
    /// page has a reason to load them.
    public static func forbiddenReason(_ address: IPAddress, privateAllowed: Bool = false) -> String? {
        if let v4 = address.embeddedIPv4 {
            return forbiddenReason(.v4(v4), privateAllowed: privateAllowed).map { "an IPv4-mapped IPv6 address of \($0)" }
        }
        if let always = alwaysForbiddenReason(address) { return always }
        if privateAllowed { return nil }
        switch address {
        case .v4(let a):
            func within(_ base: UInt32, _ bits: UInt32) -> Bool { bits == 0 || a >> (32 - bits) == base >> (32 - bits) }
            if within(0x0000_0000, 8) { return "the unspecified/\"this network\" range 0.0.0.0/8" }
            if within(0x7F00_0000, 8) { return "loopback (127.0.0.0/8)" }
            if within(0x0A00_0000, 8) { return "a private network (10.0.0.0/8)" }
            if within(0xAC10_0000, 12) { return "a private network (172.16.0.0/12)" }
            if within(0xC0A8_0000, 16) { return "a private network (192.168.0.0/16)" }
            if within(0x6440_0000, 10) { return "carrier-grade NAT (100.64.0.0/10)" }
            if within(0xC000_0000, 24) { return "IETF protocol assignments (192.0.0.0/24)" }
            if within(0xC000_0200, 24) || within(0xC633_6400, 24) || within(0xCB00_7100, 24) { return "documentation (TEST-NET)" }
            if within(0xC612_0000, 15) { return "benchmarking (198.18.0.0/15)" }
            if within(0xE000_0000, 4) { return "multicast (224.0.0.0/4)" }
            if within(0xF000_0000, 4) { return "reserved or broadcast (240.0.0.0/4)" }
            return nil
        case .v6(let b):
            if b.allSatisfy({ $0 == 0 }) { return "the unspecified address (::)" }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "loopback (::1)" }
            if b[0] & 0xFE == 0xFC { return "unique-local (fc00::/7)" }
            if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return "site-local (fec0::/10)" }
            if b[0] == 0xFF { return "multicast (ff00::/8)" }
            if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B { return "NAT64 (64:ff9b::/96), which can reach internal IPv4" }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return "documentation (2001:db8::/32)" }
            if b[0] == 0x20 && b[1] == 0x02 { return "6to4 (2002::/16), which embeds an IPv4 address" }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00 { return "Teredo (2001::/32), which embeds an IPv4 address" }
            return nil
        }
    }
}

extension AddressPolicy {
    /// What is refused whatever else is allowed: link-local ranges (cloud metadata
    /// at 169.254.169.254 among them) and the metadata services that live elsewhere (AWS's
    /// IPv6 one at fd00:ec2::254, Alibaba's at 100.100.100.200).
    static func alwaysForbiddenReason(_ address: IPAddress) -> String? {
        switch address {
        case .v4(let a):
            if a >> 16 == 0xA9FE { return "link-local (169.254.0.0/16, which includes cloud metadata at 169.254.169.254)" }
            if a == 0x6464_64C8 { return "a cloud metadata service (100.100.100.200)" }
            return nil
        case .v6(let b):
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "link-local (fe80::/10)" }
            let ec2: [UInt8] = [0xFD, 0x00, 0x0E, 0xC2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54]
            if Array(b) == ec2 { return "a cloud metadata service (fd00:ec2::254)" }
            return nil
        }
    }
}

/// A URL a job may fetch, or the rule it breaks.
public struct URLCheck: Sendable {
    /// Hosts (or literal addresses) allowed whatever they resolve to, e.g. `127.0.0.1:8088`
    /// for tests; compared against `host` and `host:port`.
    public var allowList: Set<String>
    /// The operator's own limits on top of the SSRF rules (Gotenberg's allow and deny lists).
    public var patterns: URLPatterns
    /// What the URLs checked here are for, which picks the patterns of that purpose too; nil:
    /// only the patterns for every purpose.
    public var purpose: URLPurpose?
    /// The purposes whose URLs may reach loopback and private networks (Gotenberg's permissive
    /// default, under `pdfgate gotenberg`); link-local and metadata addresses never.
    public var privateAllowed: Set<URLPurpose>

    public init(
        allowList: Set<String> = [],
        patterns: URLPatterns = URLPatterns(),
        purpose: URLPurpose? = nil,
        privateAllowed: Set<URLPurpose> = []
    ) {
        self.allowList = allowList
        self.patterns = patterns
        self.purpose = purpose
        self.privateAllowed = privateAllowed
    }

    /// Whether `url` may reach private addresses: its purpose's default, or the purpose's own
    /// allow list naming it, which Gotenberg lets past its private-address check.
    func allowsPrivate(_ url: String) -> Bool {
        purpose.map(privateAllowed.contains) == true || patterns.explicitlyAllows(url, for: purpose)
    }

    /// The same rules, for URLs fetched for `purpose`.
    public func serving(_ purpose: URLPurpose) -> URLCheck {
        var copy = self
        copy.purpose = purpose
        return copy
    }

    /// Checks the URL's form before any DNS lookup: scheme, credentials, literal addresses.
    /// Returns the host to resolve (nil when the host was an allowed literal).
    public func checkSyntax(_ text: String) throws(JobFailure) -> (host: String, port: Int, isLiteral: Bool) {
        guard let url = URLComponentsLite(text) else {
            throw Self.refused(text, "it is not an absolute http(s) URL")
        }
        // Before the host exemptions: an allowed host is exempt from the address rules, not
        // from what the operator denied by name.
        if let refusal = patterns.refusal(text, for: purpose) {
            throw JobFailure(.rejected, code: "url_forbidden", "refusing to fetch \(text): \(refusal)")
        }
        guard url.scheme == "http" || url.scheme == "https" else {
            throw Self.refused(text, "only http and https URLs are reached, not \(url.scheme):")
        }
        guard !url.host.isEmpty else { throw Self.refused(text, "it has no host") }
        if url.hasCredentials { throw Self.refused(text, "it carries a user name or password") }
        if isAllowed(host: url.host, port: url.port) { return (url.host, url.port, IPAddress(host: url.host) != nil) }
        let privateAllowed = allowsPrivate(text)
        if let address = IPAddress(host: url.host) {
            if let reason = AddressPolicy.forbiddenReason(address, privateAllowed: privateAllowed) {
                throw refused(text, "its address \(address) is \(reason)")
            }
            return (url.host, url.port, true)
        }
        let lower = url.host.lowercased()
        // A name on the local network is looked up like any other; its addresses are checked.
        if privateAllowed { return (url.host, url.port, false) }
        if lower == "localhost" || lower.hasSuffix(".localhost") || lower.hasSuffix(".local") || lower.hasSuffix(".internal") || !lower.contains(".")
        {
            throw Self.refused(text, "its host '\(url.host)' names a machine on the local network")
        }
        return (url.host, url.port, false)
    }

    /// Checks each address the host resolved to; all must be public (or the host allow-listed).
    public func checkResolved(_ text: String, host: String, port: Int, addresses: [IPAddress]) throws(JobFailure) {
        if isAllowed(host: host, port: port) { return }
        guard !addresses.isEmpty else {
            throw JobFailure(.rejected, code: "url_unresolvable", "cannot reach \(text): its host '\(host)' does not resolve")
        }
        let privateAllowed = allowsPrivate(text)
        for address in addresses {
            if let reason = AddressPolicy.forbiddenReason(address, privateAllowed: privateAllowed) {
                throw refused(text, "'\(host)' resolves to \(address), which is \(reason)")
            }
        }
    }

    func isAllowed(host: String, port: Int) -> Bool {
        allowList.contains(host.lowercased()) || allowList.contains("\(host.lowercased()):\(port)")
    }

    func refused(_ url: String, _ rule: String) -> JobFailure {
        if allowsPrivate(url) {
            return JobFailure(
                .rejected,
                code: "url_forbidden",
                "refusing to fetch \(url): \(rule). Private addresses may be reached here, but link-local and cloud metadata addresses never"
            )
        }
        return Self.refused(url, rule)
    }

    static func refused(_ url: String, _ rule: String) -> JobFailure {
        JobFailure(
            .rejected,
            code: "url_forbidden",
            "refusing to fetch \(url): \(rule). Only public http(s) addresses are reached (pages, downloads and webhooks alike); an operator can allow a host with the URL allow-list"
        )
    }
}

/// The parts of a URL the rules need, parsed strictly (Foundation's parser is too forgiving).
struct URLComponentsLite {
    var scheme: String
    var host: String
    var port: Int
    var hasCredentials: Bool

    init?(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        var rest = text[schemeEnd.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if rest.contains("\\") { return nil }
        hasCredentials = rest.contains("@")
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        var hostPart = String(rest)
        var explicitPort: Int?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { return nil }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                explicitPort = Int(after.dropFirst())
                if explicitPort == nil { return nil }
            } else if !after.isEmpty {
                return nil
            }
            hostPart = String(hostPart[...close])
        } else if let colon = hostPart.lastIndex(of: ":") {
            explicitPort = Int(hostPart[hostPart.index(after: colon)...])
            if explicitPort == nil { return nil }
            hostPart = String(hostPart[..<colon])
        }
        if hostPart.hasSuffix(".") { hostPart.removeLast() }  // "localhost." is localhost
        host = hostPart.lowercased()
        port = explicitPort ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
    }
}
