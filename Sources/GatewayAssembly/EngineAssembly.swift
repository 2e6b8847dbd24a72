import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayLibraryModel
import GatewayLocalConverters
import GatewayPDF
import GatewayRemoteConverters
import GatewayStore
import GatewayURLSecurity
import Logging

/// The one composition root: stores, sandbox, converters, inspector, engine, intake, metrics
/// and webhooks, built from one `EngineConfiguration` by `open`. `serve` (through
/// `GatewayServer`), the CLI's commands that run jobs and the tests all get theirs here;
/// `services(…)` runs and stops its long-running parts in one `ServiceGroup`.
public final class EngineAssembly: Sendable {
    public let configuration: EngineConfiguration
    public let stores: GatewayStores
    public var library: Library { stores.library }
    public let engine: JobEngine
    /// The way in for new jobs, with the limits this assembly was given.
    public let intake: JobIntake
    public var idempotency: any IdempotencyKeys { stores.idempotency }
    public let inspector: PDFInspectorPool
    /// Reads the text of filed documents into the search index.
    package let indexer: SearchIndexer
    /// The indexer's own inspector: one worker, niced.
    let textReader: PDFInspectorPool
    public let local: LocalConverter
    /// False when `local` was lent by the caller, who then shuts it down.
    let ownsLocal: Bool
    /// The backend each job type goes to, as configured.
    public var routes: [JobType: BackendChoice] { configuration.routes }
    /// The configured backends by name, for readiness checks.
    public let converters: [any Converter]
    /// This gateway's name in leases, webhook claims and metrics.
    public let node: String
    /// Counts every job's end (by its backend), uploads, and what the store says at scrape time.
    public let metrics: GatewayMetrics
    /// Sends jobs' callbacks from the store's outbox.
    public let webhooks: WebhookSender
    /// The store's own keys: signed URLs' and webhooks' when the configuration gives none.
    public let secrets: ServerSecrets
    /// Held while this assembly lives: one engine per embedded store (a shared one has leases).
    let engineLock: EngineLock?
    /// For its service group's own messages.
    let logger: Logger

    /// Opens the store (creating and migrating what is missing) and builds everything on it.
    ///
    /// `lentConverter` lets assemblies in one process share one set of warm tools (a test
    /// harness's many gateways): this assembly converts with it but leaves its shutdown to the
    /// lender, and the converter's URL rules and sandbox are the ones it was made with, not this
    /// configuration's.
    public static func open(
        _ configuration: EngineConfiguration,
        logger: Logger,
        lentConverter: LocalConverter? = nil
    ) async throws -> EngineAssembly {
        let stores = try await GatewayStores.open(
            root: configuration.store,
            database: configuration.database,
            documents: configuration.documents,
            cacheBytes: configuration.documentsCacheBytes,
            grace: configuration.documentsGrace,
            logger: logger
        )
        do {
            if stores.shared, let refusal = configuration.sharedDatabaseRefusal { throw LibraryError(.invalidArgument, refusal) }
            let secrets = try await ServerSecrets.load(for: stores)
            return try EngineAssembly(stores: stores, secrets: secrets, configuration: configuration, logger: logger, lentConverter: lentConverter)
        } catch {
            await stores.close()
            throw error
        }
    }

    init(
        stores: GatewayStores,
        secrets: ServerSecrets,
        configuration: EngineConfiguration,
        logger: Logger,
        lentConverter: LocalConverter? = nil
    ) throws {
        self.configuration = configuration
        self.stores = stores
        self.logger = logger
        let library = stores.library
        let routes = configuration.routes
        let node = configuration.effectiveNode
        self.node = node
        engineLock = stores.shared ? nil : try EngineLock(paths: library.paths)
        let inspector = PDFInspectorPool()
        self.inspector = inspector
        // The indexer reads text in a worker of its own at a low priority: search can wait a
        // moment, a conversion should not wait for it.
        let textReader = PDFInspectorPool(configuration: .init(poolSize: 1, niceness: 10))
        self.textReader = textReader
        indexer = SearchIndexer(library: library, index: library.searchIndex, inspector: textReader, logger: logger)
        // Pages (and what they load) are checked as pages; the Gotenberg routes pick their own
        // purpose for downloads and webhooks (`URLCheck.serving`).
        let urlCheck = URLCheck(
            allowList: configuration.urlAllowList,
            patterns: configuration.urlPatterns,
            purpose: .page,
            privateAllowed: configuration.privateAddressPurposes
        )
        // Tools start lazily, so an unused local converter costs nothing.
        ownsLocal = lentConverter == nil
        if let lentConverter {
            local = lentConverter
        } else {
            local = try LocalConverter(
                configuration: .init(
                    libreOfficeSlots: configuration.toolSlots.libreOffice,
                    chromiumSlots: configuration.toolSlots.chromium,
                    calibreSlots: configuration.toolSlots.calibre,
                    // Warm tools' profiles and scratch files stay on this machine: a shared store is
                    // a network file system, and its files are every node's.
                    baseDirectory: stores.shared ? FileManager.default.temporaryDirectory.path : library.paths.meta + "/converters",
                    urlGuard: URLGuard(check: urlCheck),
                    // The store is never a converter's business; its own directories are bound back in.
                    sandbox: configuration.sandbox.hiding([library.paths.root]),
                    fontFolder: configuration.fontFolder
                )
            )
        }
        // One converter (and one slot budget) per distinct backend, shared by the types routed to it.
        var byChoice: [String: ConverterRouter.Route] = ["local": ConverterRouter.Route(converter: local, slots: 8)]
        var table: [JobType: ConverterRouter.Route] = [:]
        for (type, choice) in routes {
            if byChoice[choice.description] == nil {
                switch choice {
                case .local: break
                case .gotenberg(let url):
                    byChoice[choice.description] = .init(
                        converter: GotenbergConverter(configuration: .init(baseURL: url, urlGuard: URLGuard(check: urlCheck))),
                        slots: 4
                    )
                case .gateway(let url):
                    // A cancelled task (shutdown) must not cancel the remote job: it resumes polling.
                    let remote = RemoteGatewayConverter(
                        configuration: .init(
                            baseURL: url,
                            bearerToken: configuration.gatewayToken,
                            polling: RemotePollingPolicy(streamEvents: configuration.remoteEventStreams),
                            cancelRemoteJobOnTaskCancellation: false
                        )
                    )
                    byChoice[choice.description] = .init(converter: remote, slots: 8)
                }
            }
            table[type] = byChoice[choice.description]
        }
        converters = byChoice.values.map(\.converter)
        engine = JobEngine(
            configuration: .init(
                defaultTimeout: configuration.timeouts,
                shutdownGrace: configuration.shutdownGrace,
                uploadWindow: configuration.uploadWindow,
                lease: configuration.lease,
                sharesStore: stores.shared,
                node: node
            ),
            store: stores.jobs,
            staging: library.staging,
            router: ConverterRouter(routes: table),
            inspector: inspector,
            filer: library,
            tools: local.pdfTools,
            logger: logger
        )
        intake = JobIntake(
            engine: engine,
            filer: library,
            inspector: inspector,
            urlCheck: urlCheck,
            limits: configuration.limits,
            idempotency: stores.idempotency,
            pacing: stores.pacing
        )
        self.secrets = secrets
        webhooks = WebhookSender(
            secret: configuration.webhookSecret ?? secrets.webhookSecret,
            urlGuard: URLGuard(check: urlCheck.serving(.webhook)),
            outbox: stores.outbox,
            node: node,
            logger: logger
        )
        let metrics = GatewayMetrics()
        self.metrics = metrics
        _ = engine.observeAll { job in metrics.observe(job, backend: routes[job.spec.type]?.kind ?? "none") }
    }

    /// Reads the text of every document pending now (the CLI, before it searches); answers how
    /// many were read.
    @discardableResult
    public func indexPendingText() async throws -> Int { try await indexer.indexPending() }

    /// What `/readyz` asks: the store, the inspector and every configured backend.
    public var readiness: Readiness {
        Readiness(library: library, inspector: inspector, routes: routes, local: local, engine: engine)
    }

    /// Runs the sandbox's start-up check when any job type goes to the local converter; if it
    /// fails, those types are out (`ConverterOutages`) until the engine's re-check passes, and
    /// the problem is returned for the caller to report: `serve` logs it, the CLI stops.
    public func checkSandboxAtStart() async -> String? {
        let localTypes = routes.filter { $0.value == .local }.keys
        guard !localTypes.isEmpty, let problem = await local.sandboxProblem() else { return nil }
        for type in localTypes { engine.outages.mark(type, .converterCannotStart(problem)) }
        return problem
    }

    /// Stops what the services stop (`services(…)`), in the same order, for an assembly whose
    /// services never ran in a group: a command that gave up before its engine started, a test
    /// that drives the router and the engine itself.
    public func shutdown() async {
        await webhooks.shutdown()
        for part in stoppableParts(sharedTransferLoop: false).reversed() { await part.stop() }
    }
}
