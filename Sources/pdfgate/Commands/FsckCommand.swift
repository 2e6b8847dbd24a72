import ArgumentParser
import Foundation
import GatewayLibrary
import GatewayStore

/// `pdfgate fsck`: compare the database with the tree; `--repair` makes them agree.
struct FsckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsck",
        abstract: "Check that the library's database and folder tree agree; --repair fixes drift.",
        discussion: "Exit status: 0 when nothing is left to fix, 1 otherwise."
    )

    @Flag(help: "Fix what can be fixed: adopt PDFs and folders dropped in by hand, forget rows whose file is gone, re-read changed files.")
    var repair = false

    @Flag(help: "Compare sizes only instead of re-hashing every file.")
    var quick = false

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var inspector: InspectorOptions

    struct ReportJSON: Encodable {
        var documentsChecked: Int
        var foldersChecked: Int
        var issues: [FsckIssue]
        var clean: Bool

        enum CodingKeys: String, CodingKey {
            case documentsChecked = "documents_checked"
            case foldersChecked = "folders_checked"
            case issues, clean
        }
    }

    func run() async throws {
        try await reporting(json: output.json) {
            // Not `openLibrary()`: opening reconciles, which would repair (and hide) what a crash
            // left. fsck reports it, and only `--repair` runs the reconciler.
            let store = try await library.openStores(reconciling: false).library
            let report = try await inspector.withInspector { try await store.fsck(repair: repair, verifyHashes: !quick, inspector: $0) }
            let clean = report.issues.allSatisfy(\.repaired)
            if output.json {
                Output.printJSON(
                    ReportJSON(documentsChecked: report.documentsChecked, foldersChecked: report.foldersChecked, issues: report.issues, clean: clean)
                )
            } else {
                if !report.issues.isEmpty {
                    Output.printTable(
                        ["ISSUE", "PATH", "DETAIL", "REPAIRED"],
                        report.issues.map { [$0.kind.rawValue, $0.path, $0.detail, $0.repaired ? "yes" : "no"] }
                    )
                }
                print(
                    "checked \(report.documentsChecked) documents and \(report.foldersChecked) folders: \(report.issues.isEmpty ? "no issues" : "\(report.issues.count) issue(s)")\(clean || repair ? "" : "; run with --repair to fix")"
                )
            }
            if !clean { throw ExitCode(1) }
        }
    }
}
