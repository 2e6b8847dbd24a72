import ArgumentParser
import Foundation
import GatewayCore
import GatewayServer
import Logging

/// `pdfgate serve`: the HTTP API (DESIGN §3) and the job engine in one process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway: the HTTP API and the job runner.",
        discussion: """
            Settings come from defaults, then --config FILE (JSON, or $PDFGATE_CONFIG), then PDFGATE_* \
            environment variables, then these flags. Without tokens the server only binds to loopback.
            """
    )

    @Option(help: "Address to bind ($PDFGATE_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on ($PDFGATE_PORT; default 8080; 0 picks a free one).")
    var port: Int?

    @Option(help: "Store directory ($PDFGATE_STORE; default ./data).")
    var store: String?

    @Option(
        help: "sqlite, or postgres://USER[:PASSWORD]@HOST[:PORT]/DB to share one library between gateways ($PDFGATE_DATABASE_URL; default sqlite)."
    )
    var database: String?

    @Option(help: "Seconds a running job's lease lasts on a shared database before another gateway resumes it ($PDFGATE_LEASE_SECONDS; default 15).")
    var lease: Double?

    @Option(help: "This gateway's name in leases, logs and metrics ($PDFGATE_NODE; default host name and process id).")
    var node: String?

    @Option(help: "JSON configuration file ($PDFGATE_CONFIG).")
    var config: String?

    @Option(help: "Base URL for links in answers, e.g. https://pdf.example.com ($PDFGATE_PUBLIC_URL; default: the request's Host).")
    var publicURL: String?

    @Option(help: "none or tokens ($PDFGATE_AUTH; default: none on loopback, tokens elsewhere).")
    var auth: String?

    @Option(help: "Routing, e.g. URL_TO_PDF=gotenberg=http://g:3000,DOC_TO_PDF=local ($PDFGATE_ROUTES; default: all local).")
    var routes: String?

    @Option(name: .customLong("allow-host"), help: "Host or address URL jobs may fetch despite the SSRF rules (repeatable).")
    var allowHost: [String] = []

    @Option(
        name: .customLong("deny-url"),
        help: "Regular expression: URLs it matches are never fetched, pages, downloads and webhooks alike (repeatable; Gotenberg's deny lists)."
    )
    var denyURL: [String] = []

    @Option(
        name: .customLong("only-url"),
        help: "Regular expression: when given, only URLs matching one are fetched (repeatable; Gotenberg's allow lists)."
    )
    var onlyURL: [String] = []

    @Option(help: "Largest upload in bytes ($PDFGATE_MAX_UPLOAD_BYTES; default 104857600).")
    var maxUploadBytes: Int64?

    @Option(help: "Unfinished jobs one owner may have at once (default 32).")
    var maxActiveJobs: Int?

    @Option(help: "Jobs one owner may create per minute (default 600).")
    var jobsPerMinute: Int?

    @Option(help: "Seconds running jobs get to finish at shutdown (default 30).")
    var shutdownGrace: Double?

    @Option(
        help:
            "Gotenberg 8's routes (/forms/…, /health, /version) beside ours: on, off, or the modules to keep among chromium, libreoffice, pdfengines, prometheus, webhook ($PDFGATE_GOTENBERG_API; default on)."
    )
    var gotenbergAPI: String?

    @Option(help: "Where Gotenberg's routes are mounted, like its --api-root-path, e.g. /gotenberg/ ($PDFGATE_GOTENBERG_ROOT_PATH; default /).")
    var gotenbergRootPath: String?

    @Flag(
        help:
            "Answer Gotenberg's GET /debug: versions, modules and settings as JSON, behind the credentials ($PDFGATE_GOTENBERG_DEBUG_ROUTE; default off)."
    )
    var gotenbergDebugRoute = false

    @Flag(
        help:
            "Run local converters without their sandbox ($PDFGATE_UNSANDBOXED_CONVERTERS). Only where the kernel refuses namespaces: documents can then reach the network and this machine's files."
    )
    var unsandboxedConverters = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error (default info).")
    var logLevel: String = ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"

    func run() async throws {
        do {
            var configuration = try ServerConfiguration.load(file: config, environment: ProcessInfo.processInfo.environment)
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            if let store { configuration.store = store }
            if let database { try configuration.setDatabase(database, from: "--database") }
            if let lease { try configuration.setLease(lease, from: "--lease") }
            if let node { configuration.node = node }
            if let publicURL { configuration.publicURL = publicURL }
            if let auth {
                guard let mode = ServerConfiguration.AuthMode(rawValue: auth) else { throw ValidationError("--auth must be none or tokens") }
                configuration.auth = mode
            }
            if let routes { try configuration.applyRoutes(routes) }
            configuration.urlAllowList.formUnion(allowHost)
            if !denyURL.isEmpty || !onlyURL.isEmpty {
                try configuration.setURLPatterns(
                    deny: configuration.urlPatterns.deny + denyURL,
                    only: configuration.urlPatterns.only + onlyURL,
                    from: "--deny-url/--only-url"
                )
            }
            if let maxUploadBytes { configuration.maxUploadBytes = maxUploadBytes }
            if let maxActiveJobs { configuration.maxActiveJobsPerOwner = maxActiveJobs }
            if let jobsPerMinute { configuration.jobCreationsPerMinute = jobsPerMinute }
            if let shutdownGrace { configuration.shutdownGrace = .milliseconds(Int64(shutdownGrace * 1000)) }
            if unsandboxedConverters { configuration.unsandboxedConverters = true }
            if let gotenbergAPI { try configuration.setGotenbergAPI(gotenbergAPI, from: "--gotenberg-api") }
            if let gotenbergRootPath { try configuration.setGotenbergRootPath(gotenbergRootPath, from: "--gotenberg-root-path") }
            if gotenbergDebugRoute { configuration.gotenbergDebugRoute = true }

            var logger = Logger(label: "pdfgate", metadataProvider: RequestOwner.metadataProvider)
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            let server = try await GatewayServer(configuration: configuration, logger: logger)
            let routes = configuration.routes.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value.description)" }
            let settings = configuration
            try await server.run { port in
                // One line on stdout that scripts (and the tests) wait for.
                let line =
                    "pdfgate listening on http://\(settings.host):\(port) store=\(settings.store) database=\(settings.database) "
                    + "auth=\(settings.effectiveAuth.rawValue) routes=\(routes.joined(separator: ","))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as any GatewayError {
            Output.printError("\(error.message) [\(error.code)]")
            throw ExitCode(1)
        }
    }
}
