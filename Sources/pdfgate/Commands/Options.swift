import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayCore
import GatewayLibrary
import GatewayLibraryModel
import GatewayPDF
import GatewayServer
import GatewaySettings
import GatewayStore
import GatewayWire
import Logging

/// Which store a command works on. Beneath the flags, `serve`'s settings table: the JSON file
/// (`$PDFGATE_CONFIG`) and the `PDFGATE_*` variables mean the same to the CLI as to `serve`.
struct StoreOptions: ParsableArguments {
    @Option(help: "Store directory (default: the store setting, $PDFGATE_STORE, else ./data).")
    var store: String?

    @Option(help: "sqlite, or the postgres:// URL of a library gateways share (default: $PDFGATE_DATABASE_URL, else sqlite).")
    var database: String?

    @Option(help: "tree, or the s3://BUCKET/PREFIX the documents are in (default: $PDFGATE_DOCUMENTS, else tree).")
    var documents: String?

    /// The stores, with the rows where `--database` says.
    func openStores(reconciling: Bool = true) async throws -> GatewayStores {
        let configuration = try engineConfiguration()
        var logger = Logger(label: "pdfgate.cli")
        logger.logLevel = .warning
        return try await GatewayStores.open(
            root: configuration.store,
            database: configuration.database,
            documents: configuration.documents,
            cacheBytes: configuration.documentsCacheBytes,
            grace: configuration.documentsGrace,
            logger: logger,
            reconciling: reconciling
        )
    }

    /// The engine as `serve` would configure it from the same sources, these flags on top.
    func engineConfiguration() throws -> EngineConfiguration {
        var configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment).engine
        if let store { configuration.store = store }
        if let database { configuration.database = try DatabaseChoice(parsing: database) }
        if let documents { configuration.documents = try DocumentsChoice(parsing: documents) }
        return configuration
    }
}

/// Which store and whose library a command works on.
struct LibraryOptions: ParsableArguments {
    @OptionGroup var storeOptions: StoreOptions

    // The CLI's own: `serve` takes the owner from each request's token.
    @Option(help: "Owner whose library to use (default: $PDFGATE_OWNER, else 'default').")
    var owner: String?

    var resolvedOwner: String { owner ?? ProcessInfo.processInfo.environment["PDFGATE_OWNER"] ?? "default" }

    func openStores(reconciling: Bool = true) async throws -> GatewayStores { try await storeOptions.openStores(reconciling: reconciling) }

    func engineConfiguration() throws -> EngineConfiguration { try storeOptions.engineConfiguration() }

    func openLibrary() async throws -> Library { try await openStores().library }
}

/// A secret the CLI takes from its environment, so that it stays out of the process list; an
/// empty value is none.
func environmentSecret(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
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
