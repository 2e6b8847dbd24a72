import ArgumentParser
import Foundation
import GatewayCore
import GatewayPDF
import GatewaySandbox

/// `pdfgate`: the gateway's command line. Every subcommand drives the same library and
/// inspector the server uses.
@main
struct PDFGate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdfgate",
        abstract: "Convert documents to PDF and keep them in a folder-organized library.",
        subcommands: [
            InspectCommand.self, AddCommand.self, ListCommand.self, InfoCommand.self, RenameCommand.self,
            MoveCommand.self, RemoveCommand.self, MakeFolderCommand.self, RemoveFolderCommand.self, FsckCommand.self,
            ConvertCommand.self, ScanCommand.self, MergeCommand.self, SplitCommand.self, PDFACommand.self, MetaCommand.self,
            RotateCommand.self, EncryptCommand.self, WatermarkCommand.self, OptimizeCommand.self, OCRCommand.self, JobsCommand.self,
            SearchCommand.self, ServeCommand.self, GotenbergCommand.self, TokenCommand.self,
            StampPageCommand.self, FontsCommand.self, MigrateCommand.self,
        ]
    )

    /// Two hidden helpers bypass the command tree, whose type checks take a few milliseconds of
    /// each start: `sandbox-exec` (rlimits, the proxy listener if asked, then `execv` of the
    /// converter, whose arguments must pass through untouched; see `SandboxExecMain`) starts
    /// before every browser, and `inspect-worker` (a Poppler worker of `PDFInspectorPool`;
    /// see `InspectWorkerMain`) with every pool. Both read their own arguments.
    static func main() async {
        let arguments = CommandLine.arguments
        switch arguments.dropFirst().first.flatMap(HelperExecutable.Subcommand.init(rawValue:)) {
        case .sandboxExec: SandboxExecMain.run(arguments: Array(arguments.dropFirst(2)))
        case .inspectWorker: InspectWorkerMain.run(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        case .stampPage, nil: await main(nil)
        }
    }
}
