import GatewayEngine
import GatewayFonts
import GatewayHTTPClient
import GatewayLibrary
import Logging
import ServiceLifecycle

extension EngineAssembly {
    /// The assembly's long-running parts as services of one `ServiceGroup`: `serve`'s, with its
    /// HTTP server and closing announcer as `front`, and the CLI's own engine (`withServices`).
    ///
    /// A group starts its services in list order and, at a graceful shutdown, stops them in
    /// reverse, each once the one after it has returned. So the list runs from what stops last
    /// to what stops first: the stores (the PostgreSQL client closes once nothing writes any
    /// more), the process's HTTP transfer loop, the PDF inspectors, the local converters (warm
    /// pools; a page's vetting proxy lives no longer than its conversion), the webhook sender,
    /// the search indexer, the engine (running attempts finish or are cut within the grace),
    /// then `front`. Run them only where the group's end is the process's: the shared transfer
    /// loop does not start again.
    ///
    /// - Parameters:
    ///   - indexing: reads filed documents' text into the search index (`serve`; the CLI
    ///     indexes what it searches, when it searches).
    ///   - webhooks: sweeps other nodes' lapsed deliveries, and stops deliveries in progress.
    ///   - engineStopsEarly: returns when the engine should stop starting queued jobs before its
    ///     turn (`serve`'s closing signal); the engine still stops in its turn.
    ///   - front: what stops before the engine, last first.
    public func services(
        indexing: Bool = true,
        webhooks: Bool = true,
        engineStopsEarly: (@Sendable () async -> Void)? = nil,
        front: [ServiceGroupConfiguration.ServiceConfiguration] = []
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [any Service] = stoppableParts(sharedTransferLoop: true)
        if webhooks { services.append(WebhookSweeper(webhooks: self.webhooks)) }
        if indexing {
            services.append(SearchIndexerService(indexer: indexer))
            services.append(ChangeJournalPruner(library: library, history: configuration.changeHistory))
            if library.objects != nil {
                services.append(ObjectJanitorService(janitor: ObjectJanitor(library: library), every: configuration.documentsGrace / 4))
            }
        }
        if ownsLocal, let folder = configuration.fontFolder {
            services.append(FontFolderWatchService(watch: FontFolderWatch(folder: folder, generation: local.fonts.generation), logger: logger))
        }
        services.append(EngineService(engine: engine, stopsEarly: engineStopsEarly))
        // A part that fails still lets the others stop in order, and the group then rethrows.
        return services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) } + front
    }

    /// Runs `body` with the services (no search indexer, no webhooks) running in a group of
    /// their own, then shuts the group down: the CLI's commands that run jobs. No signal
    /// handling: the command's end is the shutdown.
    public func withServices<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: services(indexing: false, webhooks: false), logger: logger)
        )
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }

    /// The parts that only need stopping, in the order the services list them (the last stops
    /// first); `shutdown()` stops them without a group, and leaves the process's transfer loop
    /// to the process.
    func stoppableParts(sharedTransferLoop: Bool) -> [StopInTurn] {
        let (stores, inspector, textReader, local) = (stores, inspector, textReader, local)
        var parts = [StopInTurn(description: "stores") { await stores.close() }]
        if sharedTransferLoop { parts.append(StopInTurn(description: "http-transfer-loop") { await HTTPClient.shutdownSharedLoop() }) }
        parts.append(
            StopInTurn(description: "pdf-inspectors") {
                await inspector.shutdown()
                await textReader.shutdown()
            }
        )
        if ownsLocal { parts.append(StopInTurn(description: "local-converters") { await local.shutdown() }) }
        return parts
    }
}

/// Holds a part of the assembly open until the group's shutdown reaches it, then stops it.
struct StopInTurn: Service, CustomStringConvertible {
    let description: String
    let stop: @Sendable () async -> Void

    func run() async throws {
        // Returns when the group's graceful shutdown reaches this service, throws when the group
        // is cancelled instead: the part is stopped either way.
        try? await gracefulShutdown()
        await stop()
    }
}

/// Runs the engine until shutdown begins, then gives running attempts their grace: it returns
/// once each has finished or been cut (its job then resumes at the next start).
struct EngineService: Service, CustomStringConvertible {
    let engine: JobEngine
    let stopsEarly: (@Sendable () async -> Void)?
    var description: String { "engine" }

    func run() async throws {
        let (engine, stopsEarly) = (engine, stopsEarly)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await engine.run() }
                if let stopsEarly { group.addTask { await stopsEarly() } }
                // The engine runs until cancelled, so the first to end is the early stop.
                await group.next()
                group.cancelAll()
            }
        }
        // Stopped early: a service that returns before the group asks it to counts as a
        // failure, so it waits for its turn (at once if that already came).
        try? await gracefulShutdown()
    }
}

/// Forgets the change journal's deletions older than `history`, at start and every hour until
/// shutdown begins: what keeps the journal the size of the library rather than of its past.
struct ChangeJournalPruner: Service, CustomStringConvertible {
    let library: Library
    let history: Duration
    var description: String { "change-journal-pruner" }

    func run() async throws {
        let (library, history) = (library, history)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // A failed pass (the database away for a moment) is retried at the next.
                _ = try? await library.forgetChanges(olderThan: history)
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        try? await gracefulShutdown()
    }
}

/// Removes bucket objects no document names once their grace period is over, a pass every
/// quarter of it (at least every second, at most every five minutes) until shutdown begins.
struct ObjectJanitorService: Service, CustomStringConvertible {
    let janitor: ObjectJanitor
    let every: Duration
    var description: String { "object-janitor" }

    func run() async throws {
        let (janitor, pause) = (janitor, min(max(every, .seconds(1)), .seconds(300)))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // A pass that fails (the bucket away for a moment) is retried at the next.
                _ = try? await janitor.sweep()
                try? await Task.sleep(for: pause)
            }
        }
        try? await gracefulShutdown()
    }
}

/// Restarts the warm converters when the operator's font folder changes, until shutdown begins.
struct FontFolderWatchService: Service, CustomStringConvertible {
    let watch: FontFolderWatch
    let logger: Logger
    var description: String { "font-folder-watch" }

    func run() async throws {
        let (watch, logger) = (watch, logger)
        await cancelWhenGracefulShutdown {
            await watch.run {
                logger.info("fonts changed; warm converters restart before their next job", metadata: ["fonts.folder": "\(watch.folder.path)"])
            }
        }
    }
}

/// Reads filed documents' text into the search index until shutdown begins; a document half
/// read then stays pending for the next start.
struct SearchIndexerService: Service, CustomStringConvertible {
    let indexer: SearchIndexer
    var description: String { "search-indexer" }

    func run() async throws {
        let indexer = indexer
        await cancelWhenGracefulShutdown { await indexer.run() }
    }
}

/// Resumes other nodes' deliveries once their claims lapse (on one machine: a delivery whose
/// task ended without clearing it) until shutdown begins, then stops the deliveries in
/// progress; what they still owe stays in the outbox for the next start.
struct WebhookSweeper: Service, CustomStringConvertible {
    let webhooks: WebhookSender
    var description: String { "webhooks" }

    func run() async throws {
        let webhooks = webhooks
        await cancelWhenGracefulShutdown { await webhooks.sweep(every: .seconds(15)) }
        await webhooks.shutdown()
    }
}
