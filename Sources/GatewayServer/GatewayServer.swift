import Foundation
import GatewayConverters
import GatewayCore
import GatewayStore
import Hummingbird
import Logging
import ServiceLifecycle

/// `pdfgate serve`: the HTTP API on Hummingbird plus the job engine, run as one service group.
/// SIGTERM/SIGINT stop the listener first, then the engine, which lets running jobs finish within
/// `shutdownGrace` and leaves the rest to resume at the next start.
public struct GatewayServer {
    public let api: GatewayAPI
    public let routes: RouteTable
    let router: Router<GatewayRequestContext>
    let webhooks: WebhookSender

    /// Opens the store, wires the engine and builds the router; nothing listens yet.
    public init(configuration: ServerConfiguration, logger: Logger) throws {
        try configuration.validate()
        let library = try Library(root: configuration.store, logger: logger)
        let assembly = try EngineAssembly(
            library: library,
            routes: configuration.routes,
            timeouts: configuration.timeouts,
            urlAllowList: configuration.urlAllowList,
            shutdownGrace: configuration.shutdownGrace,
            logger: logger
        )
        let secrets = try ServerSecrets.loadOrCreate(metaDirectory: library.paths.meta)
        let keys = configuration.signingKeys.isEmpty ? secrets.signingKeys : configuration.signingKeys
        let api = GatewayAPI(configuration: configuration, assembly: assembly, signingKeys: keys, logger: logger)
        self.api = api
        let webhooks = WebhookSender(
            secret: configuration.webhookSecret ?? secrets.webhookSecret,
            urlGuard: URLGuard(check: assembly.engine.configuration.urlCheck),
            logger: logger
        )
        self.webhooks = webhooks
        let base = configuration.publicURL ?? "http://\(configuration.host):\(configuration.port)"
        _ = assembly.engine.observeAll { job in
            api.metrics.observe(job)
            if job.spec.callbackURL != nil, job.state.status.isTerminal {
                webhooks.deliver(job, json: api.jobJSON(job, base: base))
            }
        }
        (router, routes) = Self.makeRouter(api)
    }

    static func makeRouter(_ api: GatewayAPI) -> (Router<GatewayRequestContext>, RouteTable) {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        var routes = RouteTable()
        api.registerOperationsRoutes(&routes, router: router)
        api.registerTransferRoutes(&routes, router: router)
        let authenticated = router.group().add(
            middleware: AuthMiddleware(mode: api.configuration.effectiveAuth, tokens: api.tokens, cache: TokenCache())
        )
        api.registerJobRoutes(&routes, api: authenticated)
        api.registerDocumentRoutes(&routes, api: authenticated)
        api.registerFolderRoutes(&routes, api: authenticated)
        return (router, routes)
    }

    /// Serves until SIGTERM/SIGINT; `onListening` gets the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let configuration = api.configuration
        if configuration.effectiveAuth == .tokens, try !api.tokens.hasLiveTokens() {
            api.logger.warning("serve.no_tokens", metadata: ["hint": "every /v1 request will be refused until `pdfgate token create --owner NAME`"])
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "pdfgate"),
            services: [EngineService(engine: api.engine, closing: api.closing)],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: api.logger
        )
        try await app.runService()
        webhooks.shutdown()
        await api.assembly.shutdown()
    }
}

/// Runs the engine until graceful shutdown, then gives running jobs their grace period.
struct EngineService: Service {
    let engine: JobEngine
    let closing: ClosingSignal

    func run() async throws {
        let task = Task { await engine.run() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await task.value
            } onGracefulShutdown: {
                closing.fire()  // end event streams so the listener can drain
                task.cancel()
            }
        } onCancel: {
            task.cancel()
        }
    }
}
