import Foundation
import GatewayCore

/// Ebooks → PDF with Calibre's `ebook-convert` (DESIGN §4).
///
/// Every run gets its own HOME, config and temp directories so parallel runs never collide.
/// A run spends most of its time in fixed settle timers rather than on the CPU, which is why
/// this converter may have more slots than the machine has cores.
final class CalibreConverter: Converter {
    let name = "local.calibre"
    let slots: SlotPool<Int>
    private let executable: String
    private let sandbox: ConverterSandbox

    /// The input formats routed here; Calibre picks its input plugin by extension.
    static let formats = SourceFormats.ebook

    init(configuration: LocalConverter.Configuration) {
        executable = configuration.ebookConvertPath
        sandbox = configuration.sandbox
        slots = SlotPool(Array(0..<max(1, configuration.calibreSlots)))
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) -> Void) async throws {
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
        events(.entered(.converting))
        let work = request.workDirectory + "/calibre"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = try InputStaging.stage(path, originalFilename: originalFilename, in: work)
        let output = work + "/output.pdf"
        let log = work + "/ebook-convert.log"
        let environment = childEnvironment(
            privateDirectory: work,
            extra: [
                // Chromium's sandbox inside Qt WebEngine refuses to run as root.
                "QTWEBENGINE_DISABLE_SANDBOX": "1",
                "CALIBRE_CONFIG_DIRECTORY": work + "/config",
                "CALIBRE_TEMP_DIR": work + "/tmp",
                "CALIBRE_CACHE_DIRECTORY": work + "/cache",
            ]
        )
        // Only `work` is writable (and visible) inside; Qt WebEngine reserves terabytes of
        // address space, so memory is the watchdog's alone.
        let spec = sandbox.wrap(
            ChildSpec(
                executable: executable,
                arguments: [input, output] + Self.arguments(for: request.options),
                environment: environment,
                workingDirectory: work,
                stdout: .file(log),
                stderr: .file(log)
            ),
            mounts: .init(writable: [work]),
            backstops: .init(addressSpace: false, cpu: true)
        )

        let outcome = try await LocalFailures.withSlot(slots, tool: "Calibre", what: originalFilename, deadline: request.deadline) { _ in
            do throws(SpawnFailure) {
                return try await runOneShot(spec, deadline: request.deadline, limits: sandbox.limits)
            } catch {
                throw JobFailure(.transient, code: "converter_unavailable", "ebook-convert could not be started: \(error.message)")
            }
        }
        let diagnostics = OutputCheck.tail(ofFile: log)
        switch outcome {
        case .cancelled:
            throw CancellationError()
        case .timedOut:
            throw LocalFailures.timedOut("Calibre", originalFilename)
        case .limitExceeded(let kind):
            throw sandbox.limits.failure(kind, tool: "Calibre", what: originalFilename)
        case .finished(.signaled(let signal)):
            throw LocalFailures.crashed("Calibre", originalFilename, "was killed by signal \(signal)", log: diagnostics)
        case .finished(.exited(let status)) where status != 0:
            throw Self.failure(status: status, log: diagnostics, name: originalFilename)
        case .finished:
            try OutputCheck.verify(output, tool: "Calibre", diagnostics: diagnostics)
            try OutputCheck.deliver(output, to: request.outputPath)
        }
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
        if let margin = options.margin, margin >= 0 {
            for side in ["left", "right", "top", "bottom"] { arguments.append("--pdf-page-margin-\(side)=\(margin * 72)") }
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
