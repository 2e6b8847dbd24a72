import ArgumentParser
import Foundation
import GatewayCore
import GatewayHTTPServing
import GatewayServer
import GatewaySettings
import Logging

/// `pdfgate serve`: the HTTP API (DESIGN §3) and the job engine in one process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway: the HTTP API and the job runner.",
        discussion: """
            Settings come from defaults, then --config FILE (JSON), then PDFGATE_* environment variables, \
            then these flags; each is declared once, with its three spellings. Without tokens the server \
            only binds to loopback.

            """ + ServerConfiguration.flagsHelp
    )

    /// Read through the settings table (`ServerConfiguration.load`), not declared here one by one.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        try await Self.serve(settings, defaults: ServerConfiguration())
    }

    /// Loads the settings over `defaults` and serves until told to stop.
    static func serve(_ settings: [String], defaults: ServerConfiguration) async throws {
        do {
            let configuration = try ServerConfiguration.load(
                environment: ProcessInfo.processInfo.environment,
                arguments: settings,
                defaults: defaults
            )
            // Before the first logger: JSON lines as Gotenberg's in a container, else text.
            if configuration.logFormat.writesJSON(toTerminal: isatty(2) != 0) {
                LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, metadataProvider: provider) }, metadataProvider: nil)
            }
            var logger = Logger(label: "pdfgate", metadataProvider: RequestOwner.metadataProvider)
            logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
            // Settings that change nothing here are said, not dropped in silence.
            for notice in configuration.notices { logger.notice("\(notice)") }
            for difference in configuration.gotenbergDifferences { logger.notice("\(difference)") }
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

/// `pdfgate gotenberg`: `serve` with Gotenberg's defaults (every interface, port 3000), for an
/// image that stands in for Gotenberg's: a compose file's `command: [gotenberg, --api-timeout=60s]`
/// runs unchanged (the image's `gotenberg` is `exec pdfgate gotenberg "$@"`). Without
/// credentials it serves Gotenberg's routes alone, open, as Gotenberg does; with Gotenberg's
/// Basic auth (`API_ENABLE_BASIC_AUTH`) or our tokens, ours too, behind them.
struct GotenbergCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gotenberg",
        abstract: "Run the gateway as Gotenberg runs: on every interface, port 3000, its flags and variables read.",
        discussion: "The settings of pdfgate serve, with Gotenberg's defaults. " + ServerConfiguration.flagsHelp
    )

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        try await ServeCommand.serve(settings, defaults: ServerConfiguration.gotenbergDefaults)
    }
}
