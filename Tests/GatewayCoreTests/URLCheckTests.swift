import GatewayJobModel
import GatewayURLSecurity
import Testing

@Suite("SSRF rules")
struct URLCheckTests {
    let check = URLCheck()

    @Test(arguments: [
        "http://127.0.0.1/", "http://localhost:8080/", "http://LOCALHOST./x", "http://2130706433/", "http://0x7f000001/",
        "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/", "http://10.0.0.5/", "http://172.20.1.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data",
        "http://100.64.0.1/", "http://224.0.0.1/", "http://0.0.0.0/", "http://[::]/", "http://[fd00::1]/", "http://[fe80::1%25eth0]/",
        "http://[ff02::1]/", "http://255.255.255.255/", "http://intranet/", "http://printer.local/", "http://db.internal/",
        "http://user:pw@example.com/", "ftp://example.com/file", "file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)",
        "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/",
    ])
    func refusesPrivateAndOddURLs(_ url: String) {
        do {
            _ = try check.checkSyntax(url)
            Issue.record("\(url) must be refused")
        } catch {
            #expect(error.code == "url_forbidden" && error.kind == .rejected)
            #expect(error.message.contains("refusing to fetch"))
        }
    }

    @Test(arguments: [
        "https://example.com/page", "http://93.184.216.34/", "https://[2606:2800:220:1:248:1893:25c8:1946]/", "http://example.com:8080/a?b#c",
    ])
    func acceptsPublicURLs(_ url: String) throws {
        _ = try check.checkSyntax(url)
    }

    @Test func resolvedAddressesAreCheckedToo() throws {
        let (host, port, _) = try check.checkSyntax("https://rebind.example.com/")
        #expect(throws: JobFailure.self) {
            try check.checkResolved(
                "https://rebind.example.com/",
                host: host,
                port: port,
                addresses: [.v4(0x5DB8_D822), IPAddress(host: "10.1.2.3")!]
            )
        }
        try check.checkResolved("https://rebind.example.com/", host: host, port: port, addresses: [IPAddress(host: "93.184.216.34")!])
    }

    /// libcurl's `CURLOPT_RESOLVE` wants an IPv6 address in one pair of brackets: with two, the
    /// pin is ignored and curl would resolve the name itself, unchecked.
    @Test func aVettedIPv6AddressIsPinnedInOnePairOfBrackets() async throws {
        let v6 = try #require(IPAddress(host: "2606:4700::1111"))
        let vetted = try await URLGuard(resolver: { _ in [v6] }).vet("https://six.example.com/")
        #expect(vetted.curlResolve == "six.example.com:443:[2606:4700:0:0:0:0:0:1111]")
        let v4 = try await URLGuard(resolver: { _ in [.v4(0x5DB8_D822)] }).vet("https://four.example.com:8443/")
        #expect(v4.curlResolve == "four.example.com:8443:93.184.216.34")
    }

    @Test func theAllowListLetsTestsUseLoopback() throws {
        let allowing = URLCheck(allowList: ["127.0.0.1:8088"])
        _ = try allowing.checkSyntax("http://127.0.0.1:8088/page.html")
        #expect(throws: JobFailure.self) { try allowing.checkSyntax("http://127.0.0.1:9999/") }
    }

    @Test("Gotenberg's permissive default: private networks and local names pass for the purposes it covers; link-local and metadata never")
    func privateAddressesForSomePurposes() throws {
        let check = URLCheck(purpose: .page, privateAllowed: [.page])
        for url in ["http://127.0.0.1:8000/invoice", "http://10.1.2.3/", "http://[::1]:3000/", "http://app:8000/invoice", "http://db.internal/"] {
            _ = try check.checkSyntax(url)
        }
        try check.checkResolved("http://app:8000/", host: "app", port: 8000, addresses: [IPAddress(host: "172.18.0.5")!])
        for url in [
            "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://[fd00:ec2::254]/", "http://100.100.100.200/",
            "http://[::ffff:169.254.169.254]/",
        ] {
            do {
                _ = try check.checkSyntax(url)
                Issue.record("\(url) must be refused")
            } catch {
                #expect(error.code == "url_forbidden" && error.message.contains("link-local and cloud metadata addresses never"), "\(error.message)")
            }
        }
        // A name that resolves to the metadata service is refused after the lookup.
        #expect(throws: JobFailure.self) {
            try check.checkResolved(
                "http://metadata.google.internal/",
                host: "metadata.google.internal",
                port: 80,
                addresses: [IPAddress(host: "169.254.169.254")!]
            )
        }
        // Another purpose of the same rules stays closed.
        #expect(throws: JobFailure.self) { try check.serving(.webhook).checkSyntax("http://127.0.0.1:8000/hook") }
        // Unless its own allow list names the URL, as Gotenberg lets such a URL past its
        // private-address check; link-local and metadata still never.
        let listed = URLCheck(patterns: try URLPatterns().adding(only: [#"^http://127\.0\.0\.1:8000/"#], for: .webhook), purpose: .webhook)
        _ = try listed.checkSyntax("http://127.0.0.1:8000/hook")
        #expect(throws: JobFailure.self) { try listed.checkSyntax("http://127.0.0.1:9000/hook") }
        let everything = URLCheck(patterns: try URLPatterns().adding(only: [".+"], for: .webhook), purpose: .webhook)
        #expect(throws: JobFailure.self) { try everything.checkSyntax("http://169.254.169.254/latest/") }
    }

    @Test("the operator's patterns: a deny pattern refuses even an allowed host, only-patterns keep everything else out")
    func operatorPatterns() throws {
        let patterns = try URLPatterns(
            deny: [#"\.exe$"#, "^https://ads\\."],
            only: ["^https://([a-z]+\\.)?example\\.com/", "^http://127\\.0\\.0\\.1:8088/"]
        )
        let check = URLCheck(allowList: ["127.0.0.1:8088"], patterns: patterns)
        _ = try check.checkSyntax("https://docs.example.com/guide")
        _ = try check.checkSyntax("http://127.0.0.1:8088/page.html")
        for (url, words) in [
            ("https://example.com/setup.exe", "deny pattern '\\.exe$'"), ("http://127.0.0.1:8088/tool.exe", "deny pattern"),
            ("https://ads.example.com/", "deny pattern '^https://ads\\.'"), ("https://example.org/", "matches none of the operator's URL patterns"),
        ] {
            do {
                _ = try check.checkSyntax(url)
                Issue.record("\(url) must be refused")
            } catch {
                #expect(error.code == "url_forbidden" && error.message.contains(words), "\(error.message)")
            }
        }
        // The SSRF rules still hold for a URL the patterns let through.
        #expect(throws: JobFailure.self) { try URLCheck(patterns: try URLPatterns(only: ["example"])).checkSyntax("http://10.0.0.1/example") }
        #expect(throws: URLPatterns.InvalidPattern.self) { try URLPatterns(deny: ["(unclosed"]) }
    }

    @Test(arguments: [
        ("2130706433", "127.0.0.1"), ("0x7f.0.0.1", "127.0.0.1"), ("017700000001", "127.0.0.1"), ("10.1", "10.0.0.1"), ("1.2.3", "1.2.0.3"),
    ])
    func numericSpellingsParse(_ host: String, _ dotted: String) {
        #expect(IPAddress(host: host)?.description == dotted)
    }
}
