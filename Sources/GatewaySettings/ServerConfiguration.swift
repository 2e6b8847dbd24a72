import Foundation
import GatewayAssembly
import GatewayURLSecurity

/// Everything `pdfgate serve` can be told, with the defaults of the embedded setup: loopback,
/// `./data`, every job type converted locally, no tokens needed.
///
/// Sources, weakest first: defaults, the JSON file (`--config`), `PDFGATE_*` environment
/// variables, command-line flags (applied by the CLI).
@dynamicMemberLookup
public struct ServerConfiguration: Sendable {
    public enum AuthMode: String, Sendable, Codable {
        /// Every request is owner `default`; only allowed while bound to loopback.
        case none
        /// Every /v1 request needs `Authorization: Bearer <token>`.
        case tokens
    }

    public var host = "127.0.0.1"
    public var port = 8080
    /// The engine's settings (store, database, backends, limits, sandbox…), read and written
    /// through this value as if they were its own (`configuration.store`).
    public var engine = EngineConfiguration()
    /// Base of the absolute URLs in answers; nil to build them from the request's `Host`.
    public var publicURL: String?
    /// nil: `none` on loopback, `tokens` anywhere else.
    public var auth: AuthMode?
    public var maxUploadBytes: Int64 = 100 * 1024 * 1024
    public var uploadURLLifetime: Duration = .seconds(15 * 60)
    public var downloadURLLifetime: Duration = .seconds(60 * 60)
    /// With documents in a bucket, answer a download with a 302 to a presigned URL of its
    /// object that lives this long, so the bytes come from the bucket and not through the
    /// gateway; nil streams them through.
    public var downloadRedirect: Duration?
    /// Whether an office file, ebook, HTML page or image dropped into the WebDAV drive becomes
    /// its PDF (off: it is kept as it is, as any other file).
    public var davConvertsDroppedFiles = true
    /// Which of Gotenberg's modules answer (`--gotenberg-api chromium,pdfengines`): Gotenberg's
    /// `--chromium-disable-routes` and the like, the other way round. None: no Gotenberg routes.
    public var gotenbergModules = Set(GotenbergModule.allCases)
    /// Gotenberg 8's routes (`/forms/…`, `/health`, `/version`) beside ours: on while any module
    /// answers; `--gotenberg-api off` turns them all off, `on` all on.
    public var gotenbergAPI: Bool {
        get { !gotenbergModules.isEmpty }
        set { gotenbergModules = newValue ? Set(GotenbergModule.allCases) : [] }
    }
    /// Started as `pdfgate gotenberg`: Gotenberg's defaults (every interface, port 3000, no
    /// credentials, private addresses reachable), and without credentials its routes alone.
    public var gotenbergMode = false
    /// Where Gotenberg's routes are mounted (Gotenberg's `--api-root-path`): `/` or `/gotenberg/`.
    public var gotenbergRootPath = "/"
    /// Gotenberg's `GET /debug` (its `--api-enable-debug-route`): off, as there, because it
    /// lists the settings and tool versions.
    public var gotenbergDebugRoute = false
    /// Gotenberg's `--api-timeout`: how long a request on its routes may take, the wait for
    /// room included (then 503, as Gotenberg answers). Nil: the jobs' own deadlines.
    public var gotenbergTimeout: Duration?
    /// Gotenberg's `--api-trace-header`: the header a request's trace id comes and goes in.
    public var gotenbergTraceHeader = "Gotenberg-Trace"
    /// Gotenberg's `--api-enable-basic-auth`: its credentials (`GOTENBERG_API_BASIC_AUTH_*`)
    /// are read when the settings are loaded, into `basicAuth`.
    public var gotenbergBasicAuth = false
    /// One user name and password accepted as Basic auth on every route, for one owner (the
    /// user name), beside the tokens: Gotenberg's credentials, kept by a migrating user.
    public var basicAuth: BasicCredentials?
    /// Gotenberg's `--webhook-enable-sync-mode`: a webhook request answers its 204 once the
    /// delivery ended (within `--api-timeout`), not as soon as it is recorded.
    public var gotenbergWebhookSync = false
    /// The PDF operations whose Gotenberg engines are pdftk alone (`PDFENGINES_ENCRYPT_ENGINES=pdftk`):
    /// their routes answer what pdftk cannot do as Gotenberg does.
    public var gotenbergPDFTkOnly: Set<String> = []
    /// Gotenberg's routes whose requests are not logged (its `*-route-telemetry` and
    /// `*-logging` switches): paths under its root path, `prometheus` for the metrics path.
    public var gotenbergQuietRoutes: Set<String> = []
    /// Gotenberg's `--chromium-disable-javascript`, the other way round: whether pages on its
    /// routes run their scripts (`/v1` asks per job, `javascript: false`).
    public var gotenbergJavaScript = true
    /// Gotenberg's `--api-disable-download-from`, the other way round.
    public var gotenbergDownloadFrom = true
    /// Gotenberg's `--chromium-max-queue-size` and LibreOffice's: how many requests may wait
    /// for room before more are 429. Absent or 0: no limit, they wait until their timeout.
    public var gotenbergQueueSizes: [GotenbergModule: Int] = [:]
    /// Gotenberg's `--prometheus-namespace` and `--prometheus-metrics-path`.
    public var prometheusNamespace = "gotenberg"
    public var prometheusMetricsPath = "/prometheus/metrics"
    /// Gotenberg's `--api-port-from-env`: the variable holding the port, read at load.
    public var portFromEnvironment: String?
    /// Whether the operator set the owners' limits (`max_active_jobs_per_owner`,
    /// `job_creations_per_minute`): Gotenberg's routes then answer them with 429, as `/v1`
    /// does, instead of waiting for room as Gotenberg's queue does.
    public var ownerLimitsSet = false
    /// Settings read that change nothing here (Gotenberg's knobs for machinery pdfgate does
    /// not have), each with why: `serve` logs them when it starts, so none is silently dropped.
    public var notices: [String] = []
    /// How often an idle event stream gets a `:` comment, so proxies keep it open.
    public var heartbeat: Duration = .seconds(15)
    /// A directory to serve the web page's files from instead of the embedded copies, read on
    /// every request: for someone working on the page.
    public var webRoot: String?
    /// `kid` → secret for signed URLs; the first listed signs, all verify (rotation). Empty:
    /// a key is generated once and kept in the store.
    public var signingKeys: [SigningKey] = []
    /// trace, debug, info, notice, warning or error.
    public var logLevel = "info"
    /// How log lines are written: text, or JSON objects as Gotenberg's (`auto`: JSON when
    /// standard error is not a terminal, as in a container).
    public var logFormat = LogFormat.text
    /// The configuration file this came from, hidden from converters like the store.
    public var configurationFile: String?

    public init() {}

    public subscript<Value>(dynamicMember setting: WritableKeyPath<EngineConfiguration, Value>) -> Value {
        get { engine[keyPath: setting] }
        set { engine[keyPath: setting] = newValue }
    }

    /// The engine as `serve` runs it: the configuration file hidden from converters like the
    /// store, and an upload window that is the upload URL's life plus room for an upload that
    /// started just before it ended.
    public var servedEngine: EngineConfiguration {
        var engine = engine
        engine.hiddenPaths += configurationFile.map { [$0] } ?? []
        engine.uploadWindow = uploadURLLifetime + .seconds(5 * 60)
        return engine
    }

    /// True when `host` only accepts connections from this machine.
    public var isLoopback: Bool {
        ["127.0.0.1", "::1", "localhost", "[::1]"].contains(host) || host.hasPrefix("127.")
    }

    /// The auth mode that applies: the configured one, else tokens with Basic credentials or
    /// off loopback, none on loopback.
    public var effectiveAuth: AuthMode { auth ?? ((isLoopback || gotenbergMode) && basicAuth == nil ? .none : .tokens) }

    /// Whether our own API (`/v1`), the WebDAV drive, the web page and its signed file links are
    /// served. Always under `serve`; under `pdfgate gotenberg` only once credentials are set
    /// (tokens or Basic auth): without them it listens open, as Gotenberg does, and an open
    /// library would let anyone on the network read and delete every document.
    public var servesOwnAPI: Bool { !gotenbergMode || auth == .tokens || basicAuth != nil }

    /// What `pdfgate gotenberg` does differently from `serve`, each said once when it starts.
    public var gotenbergDifferences: [String] {
        guard gotenbergMode else { return [] }
        var lines = ["gotenberg: listening on \(host):\(port), Gotenberg's defaults (serve: 127.0.0.1:8080)"]
        if servesOwnAPI {
            lines.append("gotenberg: credentials are set, so /v1, /dav/ and the web page are served beside Gotenberg's routes, behind them")
        } else {
            lines.append(
                "gotenberg: no credentials, as Gotenberg: its routes answer anyone who reaches this port; /v1, /dav/ and the web page are off (set API_ENABLE_BASIC_AUTH or --auth tokens to turn them on)"
            )
        }
        let open = URLPurpose.allCases.filter { engine.privateAddressPurposes.contains($0) }.map(\.rawValue)
        if !open.isEmpty {
            lines.append(
                "gotenberg: URLs for \(open.joined(separator: ", ")) may reach loopback and private addresses, as Gotenberg's default (its *-deny-private-ips flags close them); link-local and cloud metadata addresses stay refused"
            )
        }
        return lines
    }

    /// Refuses settings that would be unsafe or cannot work, saying what to change.
    public func validate() throws(ConfigurationError) {
        if effectiveAuth == .none && !isLoopback && servesOwnAPI {
            throw ConfigurationError(
                "refusing to serve without tokens on \(host): anyone who can reach it could use it. Create a token "
                    + "(`pdfgate token create --owner NAME`) and set auth to tokens, or bind to 127.0.0.1"
            )
        }
        if basicAuth != nil && auth == AuthMode.none {
            throw ConfigurationError(
                "Basic auth is on (API_ENABLE_BASIC_AUTH) but auth is none: a request without the credentials would be let in. Drop one of the two"
            )
        }
        if !(0...65535).contains(port) { throw ConfigurationError("port \(port) is not between 0 (any free port) and 65535") }
        if maxUploadBytes <= 0 { throw ConfigurationError("max_upload_bytes must be positive") }
        if let publicURL, URL(string: publicURL)?.host == nil {
            throw ConfigurationError("public URL '\(publicURL)' is not an absolute URL like https://pdf.example.com")
        }
    }
}

/// A user name and password that Basic auth accepts, for the owner of that name.
public struct BasicCredentials: Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// Gotenberg's modules whose routes can be turned off one by one.
public enum GotenbergModule: String, Sendable, CaseIterable {
    case chromium, libreoffice, pdfengines, prometheus, webhook
}

/// How `serve` writes its log lines.
public enum LogFormat: String, Sendable {
    case text, json, auto

    /// Whether lines are JSON, for a standard error that is a terminal or not.
    public func writesJSON(toTerminal: Bool) -> Bool {
        switch self {
        case .text: false
        case .json: true
        case .auto: !toTerminal
        }
    }
}
