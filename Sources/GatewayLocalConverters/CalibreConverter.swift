import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox
import Synchronization

/// Ebooks → PDF with Calibre (DESIGN §4): in warm workers (`CalibreWorkerScript` under
/// `calibre-debug`, one per slot, each in its sandbox), with a cold `ebook-convert` as the safety
/// net for a book that crashes a warm one (`WarmWorkerPool`).
///
/// Every worker and every cold run gets its own HOME, config and temp directories so parallel
/// runs never collide. A cold conversion spends much of its time in Calibre's fixed settle
/// timer (a second per rendered file); the worker shortens it (`CalibreWorkerScript`), which
/// leaves it busy on the CPU: more workers than cores buys memory use, not speed.
final class CalibreConverter: Converter {
    let name = "local.calibre"
    let workers: WarmWorkerPool
    private let executable: String
    private let sandbox: ConverterSandbox

    /// The input formats routed here; Calibre picks its input plugin by extension.
    static let formats = SourceFormats.ebook

    /// `directory` must be private to this converter; the worker script is written into it.
    init(configuration: LocalConverter.Configuration, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scriptPath = directory + "/" + CalibreWorkerScript.fileName
        try CalibreWorkerScript.source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        executable = configuration.ebookConvertPath
        sandbox = configuration.sandbox
        // calibre-debug runs a script with Calibre's modules importable; it sits beside ebook-convert.
        let calibreDebug = (configuration.ebookConvertPath as NSString).deletingLastPathComponent + "/calibre-debug"
        let workers = (0..<max(1, configuration.calibreSlots)).map { index in
            let directory = directory + "/slot-\(index)"
            let log = directory + "/worker.log"
            return WarmWorker(
                settings: .init(
                    tool: "Calibre",
                    directory: directory,
                    maxConversions: max(1, configuration.maxConversionsPerCalibreWorker),
                    startTimeout: .seconds(60),
                    sandbox: configuration.sandbox,
                    logs: [log],
                    launch: { socket in
                        // Qt WebEngine reserves terabytes of address space, and a warm worker's
                        // CPU time adds up over its books: both are the watchdog's alone.
                        configuration.sandbox.wrap(
                            ChildSpec(
                                executable: calibreDebug,
                                arguments: ["-e", scriptPath],
                                environment: Self.environment(in: directory),
                                workingDirectory: directory,
                                stdin: .descriptor(socket),
                                stdout: .descriptor(socket),
                                stderr: .file(log)
                            ),
                            mounts: .init(writable: [directory], readable: [scriptPath]),
                            backstops: .init(addressSpace: false, cpu: false)
                        )
                    }
                )
            )
        }
        self.workers = WarmWorkerPool(tool: "Calibre", workers: workers, limits: configuration.sandbox.limits)
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        guard case .file(let path, let originalFilename) = request.source else {
            throw JobFailure(.rejected, code: "unsupported_source", "Calibre converts uploaded ebooks, not URLs")
        }
        let ext = InputStaging.fileExtension(of: originalFilename)
        guard Self.formats.contains(ext) else {
            throw JobFailure(
                .rejected,
                code: "unsupported_format",
                "\(originalFilename) is not an ebook format this gateway converts (\(Self.formats.sorted().joined(separator: ", ")))"
            )
        }
        try Task.checkCancellation()
        await events(.entered(.converting))
        try await workers.convert(
            path: path,
            originalFilename: originalFilename,
            request: request,
            settings: WorkerSettings(arguments: Self.arguments(for: request.options)),
            refused: { reply in Self.failure(status: 1, log: reply.message ?? "", name: originalFilename) },
            cold: { try await convertCold(path: path, originalFilename: originalFilename, request: request) }
        )
    }

    /// `ebook-convert` once, sealed and limited like a worker.
    private func convertCold(path: String, originalFilename: String, request: ConversionRequest) async throws {
        let work = request.workDirectory + "/calibre"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = try InputStaging.stage(path, originalFilename: originalFilename, in: work)
        let output = work + "/output.pdf"
        let log = work + "/ebook-convert.log"
        // Only `work` is writable (and visible) inside; Qt WebEngine reserves terabytes of
        // address space, so memory is the watchdog's alone.
        let spec = sandbox.wrap(
            ChildSpec(
                executable: executable,
                arguments: [input, output] + Self.arguments(for: request.options),
                environment: Self.environment(in: work),
                workingDirectory: work,
                stdout: .file(log),
                stderr: .file(log)
            ),
            mounts: .init(writable: [work]),
            backstops: .init(addressSpace: false, cpu: true)
        )
        let status = try await LocalFailures.runCold(
            spec,
            tool: "Calibre",
            what: originalFilename,
            log: log,
            request: request,
            limits: sandbox.limits
        )
        let diagnostics = OutputCheck.tail(ofFile: log)
        if status != 0 { throw Self.failure(status: status, log: diagnostics, name: originalFilename) }
        try OutputCheck.verify(output, tool: "Calibre", diagnostics: diagnostics)
        try OutputCheck.deliver(output, to: request.outputPath)
    }

    /// HOME, config, cache and temp all under `directory`.
    private static func environment(in directory: String) -> [String: String] {
        childEnvironment(
            privateDirectory: directory,
            extra: [
                // Chromium's sandbox inside Qt WebEngine refuses to run as root; bubblewrap is ours.
                "QTWEBENGINE_DISABLE_SANDBOX": "1",
                "CALIBRE_CONFIG_DIRECTORY": directory + "/config",
                "CALIBRE_TEMP_DIR": directory + "/tmp",
                "CALIBRE_CACHE_DIRECTORY": directory + "/cache",
            ]
        )
    }

    /// Ends every warm worker; conversions in flight fail as transient.
    func shutdown() async {
        await workers.shutdown()
    }

    func isReady() async -> Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// `ebook-convert` options for what the client set: custom paper in inches, margins in points.
    static func arguments(for options: ConversionOptions) -> [String] {
        var arguments: [String] = []
        var size: (Double, Double)?
        if let width = options.paperWidth, let height = options.paperHeight, width > 0, height > 0 { size = (width, height) }
        if options.landscape == true { size = size ?? (8.5, 11) }
        if var (width, height) = size {
            if options.landscape == true { (width, height) = (max(width, height), min(width, height)) }
            arguments += ["--unit", "inch", "--custom-size", "\(width)x\(height)"]
        }
        // Calibre's own default is 72 pt a side.
        if let margins = options.margins(fallback: 1) {
            for (side, inches) in [("left", margins.left), ("right", margins.right), ("top", margins.top), ("bottom", margins.bottom)] {
                arguments.append("--pdf-page-margin-\(side)=\(inches * 72)")
            }
        }
        return arguments
    }

    /// Calibre exits 1 with a Python traceback both for bad books and for its own troubles; the
    /// exception's type tells them apart.
    static func failure(status: Int32, log: String, name: String) -> JobFailure {
        let exception = log.split(separator: "\n").last { line in
            let head = line.prefix { $0 != ":" }
            return !head.isEmpty && head.count < line.count && head.hasSuffix("Error") && !head.contains(" ")
        }.map(String.init)
        if log.contains("DRMError") {
            return JobFailure(.rejected, code: "drm_protected", "\(name) is DRM-protected; Calibre cannot convert it")
        }
        let badInput = [
            "ValueError", "BadZipFile", "BadZipfile", "XMLSyntaxError", "UnicodeDecodeError", "MobiError", "KeyError", "IndexError",
            "AssertionError", "ParserError", "InvalidBook", "NotImplementedError",
        ]
        if let exception, badInput.contains(where: { exception.prefix { $0 != ":" }.hasSuffix($0) }) {
            return JobFailure(.rejected, code: "unreadable_document", "Calibre cannot read \(name): \(exception)")
        }
        return JobFailure(
            .transient,
            code: "conversion_failed",
            "Calibre failed on \(name) (exited with status \(status))" + (log.isEmpty ? "" : ": " + OutputCheck.lastLines(log))
        )
    }
}
