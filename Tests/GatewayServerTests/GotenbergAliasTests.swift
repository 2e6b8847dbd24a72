import Foundation
import GatewayAssembly
import GatewayURLSecurity
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer
@testable import GatewaySettings

/// A compose file written for Gotenberg starts pdfgate with the same
/// environment and flags — each read as our setting where we have it, named in a notice where
/// it changes nothing here, refused by name where we cannot honour it.
@Suite("Gotenberg's settings, read as ours")
struct GotenbergAliasTests {
    static func load(_ environment: [String: String] = [:], _ arguments: [String] = []) throws -> ServerConfiguration {
        try ServerConfiguration.load(file: nil, environment: environment, arguments: arguments)
    }

    @Test("a migrating compose file's environment lands in our settings")
    func composeEnvironment() throws {
        let loaded = try Self.load([
            "API_PORT": "3000",
            "API_BIND_IP": "0.0.0.0",
            "API_TIMEOUT": "1m30s",
            "API_BODY_LIMIT": "5MB",
            "API_ROOT_PATH": "/gotenberg/",
            "API_TRACE_HEADER": "X-Request-Id",
            "API_ENABLE_DEBUG_ROUTE": "true",
            "API_ENABLE_BASIC_AUTH": "true",
            "GOTENBERG_API_BASIC_AUTH_USERNAME": "paperless",
            "GOTENBERG_API_BASIC_AUTH_PASSWORD": "s3cret",
            "CHROMIUM_DENY_LIST": "^http://intranet\\.,^file:",
            "CHROMIUM_ALLOW_LIST": "^https://",
            "WEBHOOK_ALLOW_LIST": "^https://hooks\\.example\\.com/",
            "API_DOWNLOAD_FROM_DENY_LIST": "\\.exe$",
            "LIBREOFFICE_DISABLE_ROUTES": "true",
            "PROMETHEUS_NAMESPACE": "acme",
            "GOTENBERG_GRACEFUL_SHUTDOWN_DURATION": "45s",
            "LOG_LEVEL": "warn",
            "CHROMIUM_MAX_QUEUE_SIZE": "10",
        ])
        #expect(loaded.port == 3000 && loaded.host == "0.0.0.0")
        #expect(loaded.gotenbergTimeout == .seconds(90))
        #expect(loaded.maxUploadBytes == 5_000_000, "go-humanize's MB is 10^6")
        #expect(loaded.gotenbergRootPath == "/gotenberg/")
        #expect(loaded.gotenbergTraceHeader == "X-Request-Id")
        #expect(loaded.gotenbergDebugRoute)
        #expect(loaded.basicAuth == BasicCredentials(username: "paperless", password: "s3cret"))
        #expect(loaded.effectiveAuth == .tokens, "Basic auth needs credentials, as on Gotenberg")
        #expect(loaded.urlPatterns.deny(for: .page) == ["^http://intranet\\.", "^file:"])
        #expect(loaded.urlPatterns.only(for: .page) == ["^https://"])
        #expect(loaded.urlPatterns.only(for: .webhook) == ["^https://hooks\\.example\\.com/"])
        #expect(loaded.urlPatterns.deny(for: .download) == ["\\.exe$"])
        #expect(loaded.urlPatterns.deny.isEmpty && loaded.urlPatterns.only.isEmpty, "Gotenberg's lists keep to their purpose")
        #expect(!loaded.gotenbergModules.contains(.libreoffice) && loaded.gotenbergModules.contains(.chromium))
        #expect(loaded.prometheusNamespace == "acme")
        #expect(loaded.shutdownGrace == .seconds(45))
        #expect(loaded.logLevel == "warning")
        #expect(loaded.gotenbergQueueSizes[.chromium] == 10)
        try loaded.validate()
    }

    @Test("Gotenberg's flags, repeated lists and bare toggles included; ours win over its environment")
    func flags() throws {
        let loaded = try Self.load(
            ["API_TIMEOUT": "10s"],
            [
                "--api-timeout=45s", "--chromium-allow-list=^file:///tmp/.*", "--chromium-allow-list", "^http://nginx-webserver",
                "--webhook-disable", "--api-port", "3001", "--log-format=text", "--prometheus-metrics-path=/metrics/gotenberg",
            ]
        )
        #expect(loaded.gotenbergTimeout == .seconds(45))
        #expect(loaded.urlPatterns.only(for: .page) == ["^file:///tmp/.*", "^http://nginx-webserver"])
        #expect(!loaded.gotenbergModules.contains(.webhook))
        #expect(loaded.port == 3001)
        #expect(loaded.prometheusMetricsPath == "/metrics/gotenberg")
        #expect(loaded.logFormat == .text)
        #expect(try Self.load(["LOG_FORMAT": "json"]).logFormat == .json)
        #expect(try ServerConfiguration.load(environment: [:], defaults: .gotenbergDefaults).logFormat == .auto, "JSON in a container, as Gotenberg")
    }

    @Test("a knob of machinery pdfgate does not have is named in a notice, not dropped in silence")
    func notices() throws {
        let loaded = try Self.load(["CHROMIUM_RESTART_AFTER": "10", "PDFENGINES_MERGE_ENGINES": "qpdf,pdfcpu"], ["--gotenberg-hide-banner"])
        #expect(loaded.notices.contains { $0.hasPrefix("CHROMIUM_RESTART_AFTER=10 changes nothing in pdfgate:") }, "\(loaded.notices)")
        #expect(loaded.notices.contains { $0.hasPrefix("PDFENGINES_MERGE_ENGINES=qpdf,pdfcpu changes nothing") }, "\(loaded.notices)")
        #expect(loaded.notices.contains { $0.hasPrefix("--gotenberg-hide-banner=true") }, "\(loaded.notices)")
    }

    @Test("what pdfgate cannot honour stops it, naming the setting and what to do instead")
    func refusals() throws {
        let cases: [([String: String], [String], String)] = [
            (["CHROMIUM_PROXY_SERVER": "http://proxy:3128"], [], "CHROMIUM_PROXY_SERVER=http://proxy:3128 cannot be honoured"),
            ([:], ["--api-tls-cert-file=/certs/tls.crt"], "--api-tls-cert-file=/certs/tls.crt cannot be honoured: pdfgate serves plain HTTP"),
            (["LOG_FORMAT": "yaml"], [], "LOG_FORMAT must be text, json or auto, not 'yaml'"),
            (["API_ENABLE_BASIC_AUTH": "true"], [], "GOTENBERG_API_BASIC_AUTH_USERNAME is not set"),
            (["API_TIMEOUT": "soon"], [], "API_TIMEOUT 'soon' is not a duration"),
            (["API_ENABLE_BASIC_AUTH": "maybe"], [], "API_ENABLE_BASIC_AUTH must be true or false, not 'maybe'"),
            (["CHROMIUM_ALLOW_LIST": "[a-"], [], "CHROMIUM_ALLOW_LIST: the URL pattern '[a-' is not a regular expression"),
            ([:], ["--chromium-alow-list=x"], "--chromium-alow-list is not a setting of pdfgate serve; did you mean --chromium-allow-list?"),
        ]
        for (environment, arguments, expected) in cases {
            do {
                _ = try Self.load(environment, arguments)
                Issue.record("\(environment) \(arguments) was accepted")
            } catch {
                #expect("\(error)".contains(expected), "\(environment) \(arguments): \(error)")
            }
        }
        // Honoured values of the same settings start: what pdfgate does anyway.
        _ = try Self.load(["CHROMIUM_DENY_PRIVATE_IPS": "true", "API_TLS_CERT_FILE": "", "LOG_FORMAT": "auto"])
        // Basic auth with our no-auth mode would let anyone in.
        let open = try Self.load([
            "API_ENABLE_BASIC_AUTH": "1", "GOTENBERG_API_BASIC_AUTH_USERNAME": "u", "GOTENBERG_API_BASIC_AUTH_PASSWORD": "p",
            "PDFGATE_AUTH": "none",
        ])
        #expect(throws: ConfigurationError.self) { try open.validate() }
    }

    @Test("pdfgate gotenberg starts as Gotenberg does: open, its routes alone, private addresses reachable until its flags close them")
    func gotenbergDefaults() throws {
        let open = try ServerConfiguration.load(environment: [:], defaults: .gotenbergDefaults)
        try open.validate()
        #expect(open.host == "0.0.0.0" && open.port == 3000 && open.effectiveAuth == .none)
        #expect(!open.servesOwnAPI, "/v1, /dav/ and the page stay off without credentials")
        #expect(open.privateAddressPurposes == Set(URLPurpose.allCases))
        #expect(open.gotenbergDifferences.count == 3, "\(open.gotenbergDifferences)")
        #expect(open.gotenbergDifferences.contains { $0.contains("/v1, /dav/ and the web page are off") })

        // Each *-deny-private-ips flag closes its own purposes.
        let denied = try ServerConfiguration.load(
            environment: ["CHROMIUM_DENY_PRIVATE_IPS": "true", "WEBHOOK_DENY_PRIVATE_IPS": "true"],
            defaults: .gotenbergDefaults
        )
        #expect(denied.privateAddressPurposes == [.download])

        // Credentials bring ours back, behind them.
        let guarded = try ServerConfiguration.load(
            environment: ["API_ENABLE_BASIC_AUTH": "true", "GOTENBERG_API_BASIC_AUTH_USERNAME": "u", "GOTENBERG_API_BASIC_AUTH_PASSWORD": "p"],
            defaults: .gotenbergDefaults
        )
        try guarded.validate()
        #expect(guarded.servesOwnAPI && guarded.effectiveAuth == .tokens)

        // `serve` stays closed: private addresses only where the operator says so, by name or by flag.
        let served = try Self.load()
        #expect(served.privateAddressPurposes.isEmpty && served.servesOwnAPI && served.gotenbergDifferences.isEmpty)
        #expect(try Self.load(["CHROMIUM_DENY_PRIVATE_IPS": "false"]).privateAddressPurposes == [.page])
        // Off loopback, `serve` asks for tokens; told to ask for nothing, it refuses to start.
        #expect(try Self.load(["PDFGATE_HOST": "0.0.0.0"]).effectiveAuth == .tokens)
        #expect(throws: ConfigurationError.self) { try Self.load(["PDFGATE_HOST": "0.0.0.0", "PDFGATE_AUTH": "none"]).validate() }
    }

    @Test("Go's spellings of durations, sizes and booleans")
    func goText() throws {
        #expect(try GoText.duration("30s", "t") == .seconds(30))
        #expect(try GoText.duration("1m30s", "t") == .seconds(90))
        #expect(try GoText.duration("1.5h", "t") == .seconds(5400))
        #expect(try GoText.duration("250ms", "t") == .milliseconds(250))
        #expect(try GoText.duration("0", "t") == .zero)
        // The door's waitDelay reads the same: Go takes a bare 0, and no unit-less number else.
        var fields = GotenbergFields(["waitDelay": "0", "other": "1.5s", "bad": "5"])
        #expect(fields.seconds("waitDelay") == 0 && fields.seconds("other") == 1.5 && fields.seconds("bad") == nil)
        #expect(fields.problems == ["form field 'bad' is invalid (got '5', resulting to time: invalid duration \"5\")"])
        #expect(throws: ConfigurationError.self) { try GoText.duration("30", "t") }
        #expect(try GoText.bytes("100MB", "b") == 100_000_000)
        #expect(try GoText.bytes("5MiB", "b") == 5 << 20)
        #expect(try GoText.bytes("1G", "b") == 1_000_000_000)
        #expect(try GoText.bytes("2048", "b") == 2048)
        #expect(throws: ConfigurationError.self) { try GoText.bytes("lots", "b") }
        #expect(try GoText.bool("T", "x") && !(try GoText.bool("0", "x")))
        #expect(throws: ConfigurationError.self) { try GoText.bool("yes", "x") }
    }

    @Test("the port named by --api-port-from-env")
    func portFromEnvironment() throws {
        #expect(try Self.load(["API_PORT_FROM_ENV": "PORT", "PORT": "4242"]).port == 4242)
        #expect(throws: ConfigurationError.self) { try Self.load(["API_PORT_FROM_ENV": "PORT"]) }
    }
}

/// Go's `encoding/json` messages, which Gotenberg's 400s embed.
@Suite("Go's JSON errors")
struct GoJSONErrorTests {
    @Test("the scanner's words, byte for byte, for the mistakes people make")
    func syntax() {
        let cases: [(String, String)] = [
            ("x", "invalid character 'x' looking for beginning of value"),
            (#"{"a":1"#, "unexpected end of JSON input"),
            ("", "unexpected end of JSON input"),
            (#"{"a" 1}"#, "invalid character '1' after object key"),
            ("[1,]", "invalid character ']' looking for beginning of value"),
            (#"{"a":1 "b":2}"#, "invalid character '\"' after object key:value pair"),
            ("{a:1}", "invalid character 'a' looking for beginning of object key string"),
            ("[1 2]", "invalid character '2' after array element"),
            ("trux", "invalid character 'x' in literal true (expecting 'e')"),
            ("[1] x", "invalid character 'x' after top-level value"),
            (#""a\qb""#, "invalid character 'q' in string escape code"),
            ("-x", "invalid character 'x' in numeric literal"),
            ("1.x", "invalid character 'x' after decimal point in numeric literal"),
            ("{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
            ("\"a\u{1}\"", "invalid character '\\x01' in string literal"),
        ]
        for (text, expected) in cases {
            #expect(GoJSONError.syntaxError(Array(text.utf8)) == expected, "\(text)")
        }
        #expect(GoJSONError.syntaxError(Array(#"{"a":[1,2.5e3,{"b":null}],"c":"\u00e9"}"#.utf8)) == nil)
    }

    @Test("a well-formed value of the wrong kind is Go's type error")
    func types() {
        #expect(
            GoJSONError.message(for: "[1]", into: .object(goType: "map[string]interface {}"))
                == "json: cannot unmarshal array into Go value of type map[string]interface {}"
        )
        #expect(GoJSONError.message(for: #""x""#, into: .array(goType: "[]int64")) == "json: cannot unmarshal string into Go value of type []int64")
        #expect(GoJSONError.message(for: "null", into: .array(goType: "[]int64")) == nil)
        #expect(GoJSONError.message(for: "{}", into: .object(goType: "map[string]string")) == nil)
    }
}
