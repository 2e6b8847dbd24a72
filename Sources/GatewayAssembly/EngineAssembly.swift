import Foundation
import GatewayConverters
import GatewayCore
import GatewayPDF
import GatewayStore
import Logging

/// The engine and everything it needs, wired once for the CLI and the server alike;
/// `shutdown()` ends the helper processes.
public final class EngineAssembly: Sendable {
    public let stores: GatewayStores
    public var library: Library { stores.library }
    public let engine: JobEngine
    /// The way in for new jobs, with the limits this assembly was given.
    public let intake: JobIntake
    public var idempotency: any IdempotencyKeys { stores.idempotency }
    public let inspector: PDFInspectorPool
    public let local: LocalConverter
    /// The backend each job type goes to, as configured.
    public let routes: [JobType: BackendChoice]
    /// The configured backends by name, for readiness checks.
    public let converters: [any Converter]
    /// Held while this assembly lives: one engine per embedded store (a shared one has leases).
    let engineLock: EngineLock?

    public init(
        stores: GatewayStores,
        lease: Duration = .seconds(15),
        node: String = UUID().uuidString.lowercased(),
        routes: [JobType: BackendChoice],
        timeouts: [JobType: Duration] = [:],
        urlAllowList: Set<String> = [],
        urlPatterns: URLPatterns = URLPatterns(),
        shutdownGrace: Duration = .seconds(30),
        remoteEventStreams: Bool = true,
        gatewayToken: String? = nil,
        uploadWindow: Duration = .seconds(20 * 60),
        sandbox: ConverterSandbox = ConverterSandbox(),
        toolSlots: ToolSlots = ToolSlots(),
        limits: JobIntake.Limits = .none,
        logger: Logger
    ) throws {
        self.stores = stores
        let library = stores.library
        self.routes = routes
        engineLock = stores.shared ? nil : try EngineLock(paths: library.paths)
        inspector = PDFInspectorPool()
        let urlCheck = URLCheck(allowList: urlAllowList, patterns: urlPatterns)
        // Tools start lazily, so an unused local converter costs nothing.
        local = try LocalConverter(
            configuration: .init(
                libreOfficeSlots: toolSlots.libreOffice,
                chromiumSlots: toolSlots.chromium,
                calibreSlots: toolSlots.calibre,
                // Warm tools' profiles and scratch files stay on this machine: a shared store is
                // a network file system, and its files are every node's.
                baseDirectory: stores.shared ? FileManager.default.temporaryDirectory.path : library.paths.meta + "/converters",
                urlGuard: URLGuard(check: urlCheck),
                // The store is never a converter's business; its own directories are bound back in.
                sandbox: sandbox.hiding([library.paths.root])
            )
        )
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
                            bearerToken: gatewayToken,
                            polling: RemotePollingPolicy(streamEvents: remoteEventStreams),
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
                defaultTimeout: timeouts,
                shutdownGrace: shutdownGrace,
                uploadWindow: uploadWindow,
                lease: lease,
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
            limits: limits,
            idempotency: stores.idempotency,
            pacing: stores.pacing
        )
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

    public func shutdown() async {
        await inspector.shutdown()
        await local.shutdown()
        await stores.close()  // last: whatever stopped above may still have written
    }
}
