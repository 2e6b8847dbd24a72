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

    @Option(help: "Scheduling niceness, for work that can wait.")
    var nice: Int32?

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

/// `pdfgate stamp-page` (hidden): a watermark's stamp, drawn with cairo inside the operations'
/// sandbox (see `StampPage`); the PDF operations run it, then lay its page over the document's.
struct StampPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperExecutable.Subcommand.stampPage.rawValue,
        abstract: "Internal: draws a watermark's stamp page (started by the gateway itself).",
        shouldDisplay: false
    )

    @Option var text: String?
    @Option var fontSize: Double = 72
    @Option var image: String?
    @Option var scale: Double = 0.5
    @Option var width: Double
    @Option var height: Double
    @Option var angle: Double
    @Option var opacity: Double
    @Option var output: String

    func validate() throws {
        if (text == nil) == (image == nil) { throw ValidationError("give --text or --image") }
    }

    func run() throws {
        let content: StampPage.Content = image.map { .image(path: $0, scale: scale) } ?? .text(text ?? "", fontSize: fontSize)
        do {
            try StampPage.render(StampPage.Spec(content: content, width: width, height: height, angle: angle, opacity: opacity), to: output)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
