import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayCore
import GatewayLibrary
import GatewayLibraryModel
import GatewayPDF
import GatewayStore
import GatewayWire
import Logging

/// Which store and whose library a command works on.
struct LibraryOptions: ParsableArguments {
    @Option(help: "Store directory (default: $PDFGATE_STORE, else ./data).")
    var store: String?

    @Option(help: "Owner whose library to use (default: $PDFGATE_OWNER, else 'default').")
    var owner: String?

    @Option(help: "sqlite, or the postgres:// URL of a library gateways share (default: $PDFGATE_DATABASE_URL, else sqlite).")
    var database: String?

    var resolvedStore: String { store ?? ProcessInfo.processInfo.environment["PDFGATE_STORE"] ?? "./data" }
    var resolvedOwner: String { owner ?? ProcessInfo.processInfo.environment["PDFGATE_OWNER"] ?? "default" }

    /// The stores, with the rows where `--database` says.
    func openStores(reconciling: Bool = true) async throws -> GatewayStores {
        let configuration = try engineConfiguration()
        var logger = Logger(label: "pdfgate.cli")
        logger.logLevel = .warning
        return try await GatewayStores.open(root: configuration.store, database: configuration.database, logger: logger, reconciling: reconciling)
    }

    /// The store and database these options name, the rest of the engine as configured by default.
    func engineConfiguration() throws -> EngineConfiguration {
        var configuration = EngineConfiguration()
        configuration.store = resolvedStore
        configuration.database = try DatabaseChoice(parsing: database ?? ProcessInfo.processInfo.environment["PDFGATE_DATABASE_URL"] ?? "")
        return configuration
    }

    func openLibrary() async throws -> Library { try await openStores().library }
}

/// `--json` for scripts; tables for people otherwise.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of a table.")
    var json = false
}

/// Bounds for Poppler, shared by every command that reads PDFs.
struct InspectorOptions: ParsableArguments {
    @Option(help: "Seconds one PDF may take to inspect before it is given up on.")
    var inspectTimeout: Double = 30

    /// Runs `body` with a worker pool and shuts it down afterwards, whatever happens.
    func withInspector<T>(_ body: (PDFInspectorPool) async throws -> T) async throws -> T {
        try await PDFInspectorPool(configuration: .init(timeout: .milliseconds(Int(inspectTimeout * 1000)))).using(body)
    }
}

extension ConflictPolicy: ExpressibleByArgument {}

/// Runs a command body, reporting any `GatewayError` the way every subcommand does: the
/// message on stderr, `{"error", "error_message"}` on stdout with `--json`, exit status 1.
func reporting(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as any GatewayError {
        if json { Output.printJSON(ErrorJSON(error: error.code, errorMessage: error.message)) }
        Output.printError("\(error.message) [\(error.code)]")
        throw ExitCode(1)
    }
}
