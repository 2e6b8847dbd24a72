import Foundation
import GatewayAssembly
import GatewayDAV
import GatewayEngine
import GatewayGotenbergAPI
import GatewayHTTPServing
import GatewayLibraryModel
import GatewayLocalConverters
import GatewaySettings
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// `pdfgate serve`: the HTTP API on Hummingbird plus the job engine, run as one service group.
/// SIGTERM/SIGINT stop the listener first, then the engine, which lets running jobs finish within
/// `shutdownGrace` and leaves the rest to resume at the next start.
public struct GatewayServer {
    public let configuration: ServerConfiguration
    public let assembly: EngineAssembly
    /// The API's routes as `METHOD /path`, for holding the router against `openapi.yaml`.
    public let routes: [String]
    public var metrics: GatewayMetrics { assembly.metrics }
    let tokens: any APITokens
    let links: APILinks
    let closing = ClosingSignal()
    let router: Router<GatewayRequestContext>
    var webhooks: WebhookSender { assembly.webhooks }
    /// Turned on by `run`: Gotenberg requests then end their jobs when their client hangs up.
    let hangUps = HangUpWatch()
    let logger: Logger

    /// Opens the store, wires the engine (`EngineAssembly.open`, which `lentConverter` is passed
    /// on to) and builds the router; nothing listens yet.
    public init(configuration: ServerConfiguration, logger: Logger, lentConverter: LocalConverter? = nil) async throws {
        try configuration.validate()
        let assembly = try await EngineAssembly.open(configuration.servedEngine, logger: logger, lentConverter: lentConverter)
        let library = assembly.library
        let keys = configuration.signingKeys.isEmpty ? assembly.secrets.signingKeys : configuration.signingKeys
        self.configuration = configuration
        self.assembly = assembly
        self.logger = logger
        tokens = assembly.stores.tokens
        let links = APILinks(configuration: configuration, signer: URLSigner(keys: keys), library: library)
        self.links = links
        let webhooks = assembly.webhooks
        if configuration.gotenbergAPI {
            webhooks.handOff(to: GotenbergWebhookDelivery(jobs: GotenbergJobs(intake: assembly.intake, library: library), logger: logger))
        }
        // A callback carries the job as the API answers it: once per job (its end), the JSON
        // reading its documents from the library.
        _ = assembly.engine.observeAll { job in
            webhooks.deliver(job) { await links.jobJSON(job, base: links.callbackBaseURL) }
        }
        (router, routes) = Self.buildRouter(
            configuration: configuration,
            assembly: assembly,
            links: links,
            tokens: tokens,
            hangUps: hangUps,
            closing: closing
        )
    }

    /// The API's routes, each controller given only what it uses. No listener: tests can drive
    /// it in-process.
    static func buildRouter(
        configuration: ServerConfiguration,
        assembly: EngineAssembly,
        links: APILinks,
        tokens: any APITokens,
        hangUps: HangUpWatch = HangUpWatch(),
        closing: ClosingSignal
    ) -> (Router<GatewayRequestContext>, [String]) {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        OperationsController(
            readiness: assembly.readiness,
            engine: assembly.engine,
            metrics: assembly.metrics,
            searchIndex: assembly.library.searchIndex
        )
        .addRoutes(to: router)
        // Gotenberg guards `/`, `/favicon.ico`, `/version` and `/debug` with its Basic auth when
        // it has one (never `/health`); ours, with tokens alone, leaves them open as before.
        let gotenbergInfoAuth = AuthMiddleware(
            mode: configuration.basicAuth == nil ? .none : configuration.effectiveAuth,
            tokens: tokens,
            cache: TokenCache(),
            basic: configuration.basicAuth
        )
        // The web page and everything of ours below, only where it is served (`pdfgate
        // gotenberg` without credentials serves Gotenberg's routes alone).
        if configuration.servesOwnAPI {
            addOwnRoutes(
                to: router,
                configuration: configuration,
                assembly: assembly,
                links: links,
                tokens: tokens,
                closing: closing,
                gotenbergRootAuth: gotenbergInfoAuth
            )
        }
        if configuration.gotenbergAPI {
            addGotenbergRoutes(
                to: router,
                configuration: configuration,
                assembly: assembly,
                tokens: tokens,
                hangUps: hangUps,
                infoAuth: gotenbergInfoAuth
            )
        }
        let routes = APIRoutes.entries(of: router)
        APIRoutes.addMethodNotAllowed(to: router)
        return (router, routes)
    }

    /// `/v1`, the WebDAV drive, the web page and its signed file links.
    private static func addOwnRoutes(
        to router: Router<GatewayRequestContext>,
        configuration: ServerConfiguration,
        assembly: EngineAssembly,
        links: APILinks,
        tokens: any APITokens,
        closing: ClosingSignal,
        gotenbergRootAuth: AuthMiddleware
    ) {
        let (maxUploadBytes, metrics) = (configuration.maxUploadBytes, assembly.metrics)
        WebController(
            assets: WebAssets(directory: configuration.webRoot),
            gotenbergRoot: configuration.gotenbergAPI && configuration.gotenbergRootPath == "/",
            gotenbergTraceHeader: HTTPField.Name(configuration.gotenbergTraceHeader) ?? .gotenbergTrace,
            gotenbergAuth: gotenbergRootAuth
        ).addRoutes(to: router)
        TransferController(intake: assembly.intake, library: assembly.library, signer: links.signer, metrics: metrics, maxUploadBytes: maxUploadBytes)
            .addRoutes(to: router)
        let tokenCache = TokenCache()
        let authenticated = router.group().add(
            middleware: AuthMiddleware(mode: configuration.effectiveAuth, tokens: tokens, cache: tokenCache, basic: configuration.basicAuth)
        )
        JobController(intake: assembly.intake, links: links, metrics: metrics, maxUploadBytes: maxUploadBytes).addRoutes(
            to: authenticated
        )
        JobEventsController(engine: assembly.engine, links: links, heartbeat: configuration.heartbeat, closing: closing)
            .addRoutes(to: authenticated)
        DocumentController(
            library: assembly.library,
            inspector: assembly.inspector,
            intake: assembly.intake,
            links: links,
            maxUploadBytes: maxUploadBytes,
            downloadRedirect: configuration.downloadRedirect
        ).addRoutes(to: authenticated)
        DocumentOperationController(intake: assembly.intake, links: links).addRoutes(to: authenticated)
        FolderController(library: assembly.library).addRoutes(to: authenticated)
        ChangeController(library: assembly.library, links: links).addRoutes(to: authenticated)
        FontController(catalog: assembly.local.fontCatalog).addRoutes(to: authenticated)
        BackupController(library: assembly.library, intake: assembly.intake, links: links, maxUploadBytes: maxUploadBytes)
            .addRoutes(to: authenticated)
        DAVController(
            library: assembly.library,
            intake: assembly.intake,
            engine: assembly.engine,
            maxUploadBytes: maxUploadBytes,
            convertsDroppedFiles: configuration.davConvertsDroppedFiles
        )
        .addRoutes(
            to: router.group().add(
                middleware: AuthMiddleware(
                    mode: configuration.effectiveAuth,
                    tokens: tokens,
                    cache: tokenCache,
                    basic: configuration.basicAuth,
                    challenge: .basic
                )
            )
        )
    }

    /// Gotenberg 8's routes, under its root path.
    private static func addGotenbergRoutes(
        to router: Router<GatewayRequestContext>,
        configuration: ServerConfiguration,
        assembly: EngineAssembly,
        tokens: any APITokens,
        hangUps: HangUpWatch,
        infoAuth: AuthMiddleware
    ) {
        let (maxUploadBytes, webhooks) = (configuration.maxUploadBytes, assembly.webhooks)
        let modules = configuration.gotenbergModules
        let local = assembly.local
        var debug: (@Sendable () async -> GotenbergDebug)? = nil
        if configuration.gotenbergDebugRoute {
            debug = { @Sendable [configuration] in GotenbergDebug(configuration: configuration, toolVersions: await local.toolVersions()) }
        }
        let settings = GotenbergRouteSettings(
            timeout: configuration.gotenbergTimeout,
            queueSizes: configuration.gotenbergQueueSizes,
            downloadFrom: configuration.gotenbergDownloadFrom,
            prometheusNamespace: configuration.prometheusNamespace,
            metricsPath: configuration.prometheusMetricsPath,
            waitsForRoom: !configuration.ownerLimitsSet,
            javaScript: configuration.gotenbergJavaScript,
            webhookSync: configuration.gotenbergWebhookSync,
            pdftkOnly: configuration.gotenbergPDFTkOnly
        )
        let gotenberg = GotenbergController(
            jobs: GotenbergJobs(
                intake: assembly.intake,
                library: assembly.library,
                admission: GotenbergAdmission(settings: settings),
                timeout: configuration.gotenbergTimeout
            ),
            inspector: assembly.inspector,
            maxUploadBytes: maxUploadBytes,
            modules: modules,
            // Without Gotenberg's webhook module its headers mean nothing, as in Gotenberg.
            webhooks: modules.contains(.webhook) ? webhooks : nil,
            hangUps: hangUps,
            restarts: { local.restarts },
            debug: debug,
            settings: settings
        )
        // Under Gotenberg's --api-root-path, as a reverse proxy in front of it expects; its
        // trace header on every answer there.
        let root = RouterPath(String(configuration.gotenbergRootPath.dropLast()))
        // Quiet routes as the request sees them: under the root path, the metrics path for `prometheus`.
        let quiet = Set(
            configuration.gotenbergQuietRoutes.map { route in
                let path = route == "prometheus" ? configuration.prometheusMetricsPath : route
                return String(configuration.gotenbergRootPath.dropLast()) + path
            }
        )
        let traced = GotenbergTraceMiddleware(header: HTTPField.Name(configuration.gotenbergTraceHeader) ?? .gotenbergTrace, quiet: quiet)
        gotenberg.addPublicRoutes(to: router.group(root).add(middleware: traced))
        // The web page takes `/` where it is served at Gotenberg's root; elsewhere `/` is Gotenberg's.
        let pageAtRoot = configuration.servesOwnAPI && configuration.gotenbergRootPath == "/"
        gotenberg.addInfoRoutes(
            to: router.group(root).add(middleware: traced).add(middleware: GotenbergErrorMiddleware()).add(middleware: infoAuth),
            root: !pageAtRoot
        )
        let forms = router.group(root).add(middleware: traced).add(middleware: GotenbergErrorMiddleware()).add(
            middleware: AuthMiddleware(mode: configuration.effectiveAuth, tokens: tokens, cache: TokenCache(), basic: configuration.basicAuth)
        )
        gotenberg.addRoutes(to: forms)
    }

    /// Serves until SIGTERM/SIGINT; `onListening` gets the bound port (useful with port 0).
    ///
    /// Shutdown order (a service group stops its services last-first; `EngineAssembly.services`
    /// lists the assembly's): `ShutdownAnnouncer` ends event streams and stops the engine from
    /// starting queued jobs at once; the HTTP server then drains, no longer held open by
    /// streams; the engine gives running jobs their grace; then the webhook sender and the
    /// search indexer, the converters' warm pools and the PDF inspectors, the HTTP transfer
    /// loop, and the stores last. The whole shutdown is bounded by the grace plus a margin,
    /// whatever a client does.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        // Real connections from here on: a Gotenberg request's job ends with its client's.
        hangUps.watch()
        if configuration.effectiveAuth == .tokens, try await !tokens.hasLiveTokens() {
            logger.warning("serve.no_tokens", metadata: ["hint": "every /v1 request will be refused until `pdfgate token create --owner NAME`"])
        }
        try await assembly.idempotency.recoverAfterRestart(now: Date())
        await webhooks.resumePending(atStart: !assembly.stores.shared)
        if configuration.routes.values.contains(.local) {
            if configuration.unsandboxedConverters {
                logger.warning(
                    "serve.unsandboxed_converters",
                    metadata: ["hint": "local converters run without their sandbox: documents can reach the network and this machine's files"]
                )
            } else if let problem = await assembly.checkSandboxAtStart() {
                logger.error("serve.sandbox_unavailable", metadata: ["problem": "\(problem)"])
            }
        }
        if configuration.publicURL == nil, ["0.0.0.0", "::"].contains(configuration.host) {
            logger.warning(
                "serve.no_public_url",
                metadata: ["hint": "webhook payloads will point at 127.0.0.1; set --public-url to the address clients reach this server at"]
            )
        }
        let (links, configuration) = (self.links, self.configuration)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [RequestHeadRefusal(), ContinueResponder()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "pdfgate"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                links.listening(onPort: port)
                await onListening(port)
            },
            logger: logger
        )
        let closing = closing
        var group = ServiceGroupConfiguration(
            services: assembly.services(
                // The closing signal comes first in a shutdown: queued jobs stop starting then,
                // not after the HTTP server has drained.
                engineStopsEarly: { await closing.fired() },
                front: [
                    .init(service: app, failureTerminationBehavior: .gracefullyShutdownGroup),
                    .init(service: ShutdownAnnouncer(closing: closing)),
                ]
            ),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = configuration.shutdownGrace + .seconds(10)
        try await ServiceGroup(configuration: group).run()
    }
}

/// The first service to hear of a shutdown: fires the closing signal, which ends event streams
/// (so the HTTP server can drain) and stops the engine from starting queued jobs.
struct ShutdownAnnouncer: Service {
    let closing: ClosingSignal

    func run() async throws {
        try? await gracefulShutdown()  // returns when shutdown begins (throws if cancelled instead)
        closing.fire()
    }
}
