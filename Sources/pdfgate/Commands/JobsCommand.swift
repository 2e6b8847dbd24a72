import ArgumentParser
import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayStore
import GatewayWire

/// `pdfgate jobs`: recent jobs and where they stand.
struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "jobs", abstract: "List jobs, newest first.")

    @Option(help: "Only jobs with this status (CREATED, QUEUED, PROCESSING, SUCCEEDED, FAILED, CANCELLED).")
    var status: String?

    @Option(help: "How many (1–1000).")
    var limit = 50

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reporting(json: output.json) {
            let filter = try status.map { text -> JobStatus in
                guard let status = JobStatus(rawValue: text.uppercased()) else {
                    throw LibraryError(
                        .invalidArgument,
                        "unknown status '\(text)'; use one of \(JobStatus.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                return status
            }
            guard (1...1000).contains(limit) else { throw LibraryError(.invalidArgument, "--limit must be 1 to 1000") }
            let store = try await library.openStores().jobs
            let jobs = try await store.list(owner: library.resolvedOwner, status: filter, type: nil, limit: limit, cursor: nil).jobs
            if output.json {
                var out = JSONOutput()
                out.beginArray()
                for job in jobs { try JobJSON(job).write(to: &out) }
                out.endArray()
                Output.printJSON(bytes: out.bytes)
                return
            }
            Output.printTable(
                ["JOB", "TYPE", "STATUS", "SOURCE", "CREATED"],
                jobs.map {
                    [
                        $0.id.lowercased, $0.spec.type.rawValue, $0.state.status.rawValue, $0.spec.url ?? $0.spec.originalFilename ?? "",
                        Output.shortDate($0.createdAt),
                    ]
                }
            )
        }
    }
}
