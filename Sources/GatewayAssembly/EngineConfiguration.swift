import Foundation
import GatewayEngine
import GatewayFonts
import GatewayJobModel
import GatewayLocalConverters
import GatewaySandbox
import GatewayURLSecurity

/// What a gateway's engine is built from: where its store and rows are, which backend converts
/// each job type, its limits and its sandbox. `serve` (inside `ServerConfiguration`), the CLI's
/// own engine and the tests all describe their engine with this one value and hand it to
/// `EngineAssembly.open`, the one place that builds stores, sandbox, converters, engine, intake,
/// metrics and webhooks.
public struct EngineConfiguration: Sendable {
    public var store = "./data"
    /// Where the rows live: SQLite beside the store, or a PostgreSQL database several gateways
    /// share (with one shared store directory).
    public var database: DatabaseChoice = .embedded
    /// Where documents' bytes live: files in the store's folder tree, or objects in an S3
    /// bucket (then several gateways need no shared folder, only the database and the bucket).
    public var documents: DocumentsChoice = .folderTree
    /// How much of a bucket's objects a gateway keeps in its local read cache.
    public var documentsCacheBytes: Int64 = 2 << 30
    /// How long a bucket object no document names is kept before the janitor removes it: longer
    /// than any upload waits for its row, and than any download of a deleted document takes.
    public var documentsGrace: Duration = .seconds(15 * 60)
    /// Why a database other gateways share is refused, if it is: the CLI's own engine would
    /// claim the cluster's jobs. nil: a shared database is fine.
    public var sharedDatabaseRefusal: String?
    /// How long a running job's lease lasts unless renewed: how soon another gateway sharing the
    /// database resumes the jobs of one that died.
    public var lease: Duration = .seconds(15)
    /// This gateway's name in leases, logs and metrics; nil: host name and process id.
    public var node: String?
    public var routes: [JobType: BackendChoice] = BackendChoice.everyType(.local)
    public var timeouts: [JobType: Duration] = [:]
    public var urlAllowList: Set<String> = []
    /// The operator's deny and only patterns for every URL a job fetches (`--deny-url`, `--only-url`).
    public var urlPatterns = URLPatterns()
    /// The purposes whose URLs may reach loopback and private networks: none under `serve`,
    /// every one under `pdfgate gotenberg` (Gotenberg's default) less those its
    /// `*-deny-private-ips` flags close. Link-local and metadata addresses stay refused.
    public var privateAddressPurposes: Set<URLPurpose> = []
    /// Jobs an owner may have unfinished at once; nil for no limit.
    public var maxActiveJobsPerOwner: Int? = 32
    /// Job creations and imports an owner may make per minute (a token bucket that refills
    /// continuously); nil for no limit.
    public var jobCreationsPerMinute: Int? = 600
    public var shutdownGrace: Duration = .seconds(30)
    /// How long the change journal (`GET /v1/changes`) remembers a deletion: a client whose
    /// token is older must read the whole library again (410 `sync_token_expired`).
    public var changeHistory: Duration = .seconds(30 * 86_400)
    /// Whether `gateway` backends wait on the peer's event stream (one request per job) before
    /// falling back to polling; off, they only poll, as the mobile client does.
    public var remoteEventStreams = true
    /// Sent as `Authorization: Bearer …` to `gateway` backends: a peer that is not on loopback
    /// runs with tokens. From the file or the environment only, never a flag (`ps` shows flags).
    public var gatewayToken: String?
    /// How long a job waits for its upload before it is given up on.
    public var uploadWindow: Duration = .seconds(20 * 60)
    /// Run local converters without their sandbox: only when the kernel or container refuses
    /// namespaces, and knowing documents can then reach the network and the gateway's files.
    public var unsandboxedConverters = false
    /// The operator's folder of fonts (`--fonts`): every local converter uses them, and picks up
    /// a change while running.
    public var fontFolder: FontFolder?
    /// Memory, CPU time and processes one local conversion may use.
    public var converterLimits = ResourceLimits()
    /// Warm LibreOffice, Chromium and Calibre instances.
    public var toolSlots = ToolSlots()
    /// Standard Webhooks secret (`whsec_…`); nil: generated once and kept in the store.
    public var webhookSecret: String?
    /// Files no converter may see besides the store (the configuration file, which may hold secrets).
    public var hiddenPaths: [String] = []

    public init() {}

    /// The node name used when none is configured: unique per process on a machine.
    var effectiveNode: String { node ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())" }

    /// Every local converter's sandbox, as configured.
    var sandbox: ConverterSandbox {
        ConverterSandbox(
            isolation: unsandboxedConverters ? .none : .bubblewrap(ConverterSandbox.defaultBubblewrap),
            limits: converterLimits,
            hiddenPaths: hiddenPaths
        )
    }

    var limits: JobIntake.Limits {
        JobIntake.Limits(creationsPerMinute: jobCreationsPerMinute, activeJobsPerOwner: maxActiveJobsPerOwner)
    }
}
