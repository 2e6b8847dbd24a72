import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore
import GatewayWire
import Logging

/// An engine of the command's own on the embedded store, for the commands that run jobs
/// (`convert`, the PDF operations): its services run in a group while `body` does, and stop
/// in order once it is done. Refused on a shared database, where it would claim the cluster's
/// jobs.
func withEmbeddedEngine<T: Sendable>(
    _ library: LibraryOptions,
    what: String,
    converter: String = "local",
    timeout: Double? = nil,
    allowHosts: Set<String> = [],
    _ body: (EngineAssembly) async throws -> T
) async throws -> T {
    var logger = Logger(label: "pdfgate.cli")
    logger.logLevel = .warning
    var configuration = try library.engineConfiguration()
    configuration.sharedDatabaseRefusal =
        "\(what) runs an engine of its own on an embedded store; with a shared database, ask a gateway's API instead"
    configuration.routes = BackendChoice.everyType(try BackendChoice(parsing: converter))
    if let timeout { configuration.timeouts = Dictionary(uniqueKeysWithValues: JobType.allCases.map { ($0, .milliseconds(Int64(timeout * 1000))) }) }
    configuration.urlAllowList.formUnion(allowHosts)
    // The operator's own tool on the operator's own machine: no pacing.
    (configuration.jobCreationsPerMinute, configuration.maxActiveJobsPerOwner) = (nil, nil)
    let assembly = try await EngineAssembly.open(configuration, logger: logger)
    // A sandbox that cannot start fails every local job: say so once, before the first, and stop.
    if let problem = await assembly.checkSandboxAtStart() {
        await assembly.shutdown()
        throw JobFailure.converterCannotStart(problem)
    }
    return try await assembly.withServices { try await body(assembly) }
}

/// Waits for every job to end, showing their progress.
func watch(_ jobs: [(source: String, id: UUID)], engine: JobEngine, progress: JobProgress) async throws -> [(String, Job)] {
    while true {
        var current: [(String, Job)] = []
        for job in jobs {
            guard let found = try await engine.job(job.id) else {
                throw LibraryError(.storage, "job \(job.id.lowercased) vanished from the job store")
            }
            current.append((job.source, found))
        }
        if current.allSatisfy({ $0.1.state.status.isTerminal }) {
            progress.showEnds(of: current.map(\.1))
            return current
        }
        progress.show()
        try await Task.sleep(for: .milliseconds(100))
    }
}

/// Prints what the finished jobs filed (every part of a split) and why the others failed;
/// answers how many failed.
func reportJobs(_ finished: [(String, Job)], library: Library, json: Bool) async throws -> Int {
    var documents: [Document] = []
    var failed = 0
    for (source, job) in finished {
        if job.state.status == .succeeded, job.state.documentID != nil {
            for id in job.filedDocumentIDs { await documents.append(try library.document(id: id, owner: job.owner)) }
        } else {
            let failure = job.state.failure
            Output.printError("\(source): \(job.state.status.rawValue): \(failure?.message ?? "no reason recorded") [\(failure?.code ?? "failed")]")
            failed += 1
        }
    }
    if json {
        Output.printJSON(documents.map(DocumentJSON.init))
    } else if !documents.isEmpty {
        Output.printTable(
            ["ID", "PATH", "PAGES", "SIZE"],
            documents.map { [$0.id.lowercased, $0.relativePath, "\($0.info.pageCount)", Output.bytes($0.size)] }
        )
    }
    return failed
}
