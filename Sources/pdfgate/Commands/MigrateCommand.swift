import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayLibrary

/// `pdfgate migrate --to s3://…` or `--to tree`: documents' bytes moved between the folder tree
/// and a bucket, the rows left as they are.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every document's bytes from the folder tree into a bucket (--to s3://BUCKET/PREFIX), or back (--to tree).",
        discussion: """
            Ids, names, folders and versions stay: only where the bytes are changes. Each copy is \
            checked against the SHA-256 the library records; documents already at the destination are \
            skipped, so a run that stopped can be run again. Nothing is removed from the source. Stop \
            the gateways first, and start them afterwards with --documents set to the destination. \
            For a bucket, the keys and server come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, \
            AWS_REGION and AWS_ENDPOINT_URL; --to tree reads from the bucket --documents names. \
            Exit status: 0 when every document is at the destination, 1 otherwise.
            """
    )

    @Option(help: "s3://BUCKET/PREFIX to copy the folder tree into, or tree to copy the bucket back into the store's folder.")
    var to: String

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    struct ReportJSON: Encodable {
        var copied: Int
        var bytes: Int64
        var alreadyThere: Int
        var failures: [String]

        enum CodingKeys: String, CodingKey {
            case copied, bytes
            case alreadyThere = "already_there"
            case failures
        }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            let destination = try DocumentsChoice(parsing: to, setting: "--to")
            let stores = try await library.openStores()
            let report: MigrationReport
            switch destination {
            case .bucket(let uri):
                let objects = try await destination.open(root: stores.library.paths.root, setting: "--to")
                guard let objects else { throw ValidationError("--to \(uri) is not a bucket") }
                report = try await stores.library.copyDocuments(into: objects)
            case .folderTree:
                report = try await stores.library.copyDocumentsToTree()
            }
            if output.json {
                Output.printJSON(ReportJSON(copied: report.copied, bytes: report.bytes, alreadyThere: report.alreadyThere, failures: report.failures))
            } else {
                for failure in report.failures { Output.printError(failure) }
                print(
                    "copied \(report.copied) documents (\(report.bytes) bytes) to \(destination); \(report.alreadyThere) were there already; \(report.failures.isEmpty ? "nothing failed" : "\(report.failures.count) failed: run again to retry them")"
                )
            }
            if !report.failures.isEmpty { throw ExitCode(1) }
        }
    }
}
