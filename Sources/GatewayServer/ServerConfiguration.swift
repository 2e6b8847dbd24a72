import Foundation
import GatewayAssembly
import GatewayConverters
import GatewayCore

/// Everything `pdfgate serve` can be told, with the defaults of the embedded setup: loopback,
/// `./data`, every job type converted locally, no tokens needed.
///
/// Sources, weakest first: defaults, the JSON file (`--config`), `PDFGATE_*` environment
/// variables, command-line flags (applied by the CLI).
public struct ServerConfiguration: Sendable {
    public enum AuthMode: String, Sendable, Codable {
        /// Every request is owner `default`; only allowed while bound to loopback.
        case none
        /// Every /v1 request needs `Authorization: Bearer <token>`.
        case tokens
    }

    public var host = "127.0.0.1"
    public var port = 8080
    public var store = "./data"
    /// Where the rows live: SQLite beside the store, or a PostgreSQL database several gateways
    /// share (with one shared store directory).
    public var database: DatabaseChoice = .embedded
    /// How long a running job's lease lasts unless renewed: how soon another gateway sharing the
    /// database resumes the jobs of one that died.
    public var lease: Duration = .seconds(15)
    /// This gateway's name in leases, logs and metrics; nil: host name and process id.
    public var node: String?
    /// Base of the absolute URLs in answers; nil to build them from the request's `Host`.
    public var publicURL: String?
    /// nil: `none` on loopback, `tokens` anywhere else.
    public var auth: AuthMode?
    public var routes: [JobType: BackendChoice] = BackendChoice.everyType(.local)
    public var timeouts: [JobType: Duration] = [:]
    public var urlAllowList: Set<String> = []
    /// The operator's deny and only patterns for every URL a job fetches (`--deny-url`, `--only-url`).
    public var urlPatterns = URLPatterns()
    public var maxUploadBytes: Int64 = 100 * 1024 * 1024
    public var uploadURLLifetime: Duration = .seconds(15 * 60)
    public var downloadURLLifetime: Duration = .seconds(60 * 60)
    /// Jobs an owner may have unfinished at once.
    public var maxActiveJobsPerOwner = 32
    /// Job creations and imports an owner may make per minute (a token bucket that refills continuously).
    public var jobCreationsPerMinute = 600
    public var shutdownGrace: Duration = .seconds(30)
    /// Whether `gateway` backends wait on the peer's event stream (one request per job) before
    /// falling back to polling; off, they only poll, as the mobile client does.
    public var remoteEventStreams = true
    /// Sent as `Authorization: Bearer …` to `gateway` backends: a peer that is not on loopback
    /// runs with tokens. From the file or the environment only, never a flag (`ps` shows flags).
    public var gatewayToken: String?
    /// Which of Gotenberg's modules answer (`--gotenberg-api chromium,pdfengines`): Gotenberg's
    /// `--chromium-disable-routes` and the like, the other way round. None: no Gotenberg routes.
    public var gotenbergModules = Set(GotenbergModule.allCases)
    /// Gotenberg 8's routes (`/forms/…`, `/health`, `/version`) beside ours: on while any module
    /// answers; `--gotenberg-api off` turns them all off, `on` all on.
    public var gotenbergAPI: Bool {
        get { !gotenbergModules.isEmpty }
        set { gotenbergModules = newValue ? Set(GotenbergModule.allCases) : [] }
    }
    /// Where Gotenberg's routes are mounted (Gotenberg's `--api-root-path`): `/` or `/gotenberg/`.
    public var gotenbergRootPath = "/"
    /// Gotenberg's `GET /debug` (its `--api-enable-debug-route`): off, as there, because it
    /// lists the settings and tool versions.
    public var gotenbergDebugRoute = false
    /// How often an idle event stream gets a `:` comment, so proxies keep it open.
    public var heartbeat: Duration = .seconds(15)
    /// A directory to serve the web page's files from instead of the embedded copies, read on
    /// every request: for someone working on the page.
    public var webRoot: String?
    /// `kid` → secret for signed URLs; the first listed signs, all verify (rotation). Empty:
    /// a key is generated once and kept in the store.
    public var signingKeys: [SigningKey] = []
    /// Standard Webhooks secret (`whsec_…`); nil: generated once and kept in the store.
    public var webhookSecret: String?
    /// Run local converters without their sandbox: only when the kernel or container refuses
    /// namespaces, and knowing documents can then reach the network and the gateway's files.
    public var unsandboxedConverters = false
    /// Memory, CPU time and processes one local conversion may use.
    public var converterLimits = ResourceLimits()
    /// Warm LibreOffice, Chromium and Calibre instances.
    public var toolSlots = ToolSlots()
    /// The configuration file this came from, hidden from converters like the store.
    public var configurationFile: String?

    public init() {}

    /// True when `host` only accepts connections from this machine.
    public var isLoopback: Bool {
        ["127.0.0.1", "::1", "localhost", "[::1]"].contains(host) || host.hasPrefix("127.")
    }

    /// The auth mode that applies: the configured one, else none on loopback and tokens elsewhere.
    public var effectiveAuth: AuthMode { auth ?? (isLoopback ? .none : .tokens) }

    /// Refuses settings that would be unsafe or cannot work, saying what to change.
    public func validate() throws(ConfigurationError) {
        if effectiveAuth == .none && !isLoopback {
            throw ConfigurationError(
                "refusing to serve without tokens on \(host): anyone who can reach it could use it. Create a token "
                    + "(`pdfgate token create --owner NAME`) and set auth to tokens, or bind to 127.0.0.1"
            )
        }
        if !(0...65535).contains(port) { throw ConfigurationError("port \(port) is not between 0 (any free port) and 65535") }
        if maxUploadBytes <= 0 { throw ConfigurationError("max_upload_bytes must be positive") }
        if let publicURL, URL(string: publicURL)?.host == nil {
            throw ConfigurationError("public URL '\(publicURL)' is not an absolute URL like https://pdf.example.com")
        }
    }
}

/// A key that signs upload and download URLs.
public struct SigningKey: Sendable, Equatable, Codable {
    public var id: String
    /// Base64 of at least 32 random bytes.
    public var secret: String

    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }
}

public struct ConfigurationError: GatewayError {
    public var message: String
    public var code: String { "invalid_configuration" }

    public init(_ message: String) { self.message = message }
}

/// Gotenberg's modules whose routes can be turned off one by one.
public enum GotenbergModule: String, Sendable, CaseIterable {
    case chromium, libreoffice, pdfengines, prometheus, webhook
}
