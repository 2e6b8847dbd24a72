import ArgumentParser
import Foundation
import GatewayConverters
import GatewayCore
import GatewayPDF

/// `pdfgate inspect-worker` (hidden): one of the PDF inspector's Poppler workers, started by
/// `PDFInspectorPool` with its memory cap; see `InspectWorkerMain` for the protocol.
struct InspectWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperExecutable.Subcommand.inspectWorker.rawValue,
        abstract: "Internal: a PDF inspection worker (started by the gateway itself).",
        shouldDisplay: false
    )

    @Option(help: "Address-space cap in bytes.")
    var memoryLimitBytes: Int?

    @Option(help: "Exit when this process is no longer the parent.")
    var parentPid: Int32?

    func run() throws {
        InspectWorkerMain.run(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
    }
}

/// `pdfgate sandbox-exec` (hidden): the first program inside a converter's sandbox; it applies
/// rlimits, hands out the proxy listener when asked, then runs the converter. See `SandboxExecMain`.
struct SandboxExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperExecutable.Subcommand.sandboxExec.rawValue,
        abstract: "Internal: runs a converter inside its sandbox (started by the gateway itself).",
        shouldDisplay: false
    )

    @Argument(parsing: .allUnrecognized, help: "Limits, then -- and the converter's command line.")
    var command: [String] = []

    func run() throws {
        // Parsed by hand: the converter's own arguments must pass through untouched.
        SandboxExecMain.run(arguments: Array(CommandLine.arguments.drop { $0 != HelperExecutable.Subcommand.sandboxExec.rawValue }.dropFirst()))
    }
}
