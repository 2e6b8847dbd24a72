import Foundation
import GatewayJobModel

/// The checks every local converter makes on what a tool left behind: tools happily exit 0
/// without writing anything (Chromium on some load failures, LibreOffice on odd filters).
package enum OutputCheck {
    /// Throws `no_output` unless `path` is a non-empty file that starts with `%PDF-` (or, for a
    /// screenshot, as an `image` of its format does).
    package static func verify(_ path: String, tool: String, diagnostics: String = "", image: ScreenshotOptions.Format? = nil) throws(JobFailure) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw noOutput(tool, "no file was written", diagnostics)
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 12)) ?? Data()
        if head.isEmpty { throw noOutput(tool, "the file is empty", diagnostics) }
        if let image {
            if !image.matches(head) { throw noOutput(tool, "the file is not a \(image.rawValue.uppercased()) image", diagnostics) }
        } else if !head.starts(with: Data("%PDF-".utf8)) {
            throw noOutput(tool, "the file is not a PDF", diagnostics)
        }
    }

    /// Moves a verified PDF to where the engine expects it; a failed attempt never leaves a
    /// partial file at `outputPath`.
    package static func deliver(_ path: String, to outputPath: String) throws(JobFailure) {
        do {
            if FileManager.default.fileExists(atPath: outputPath) { try FileManager.default.removeItem(atPath: outputPath) }
            try FileManager.default.moveItem(atPath: path, toPath: outputPath)
        } catch {
            throw JobFailure(
                .transient,
                code: "output_not_stored",
                "the converted PDF could not be moved to \(outputPath): \(error.localizedDescription)"
            )
        }
    }

    /// The last `limit` bytes of a log file, trimmed, for error messages.
    package static func tail(ofFile path: String, limit: Int = 4096) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > UInt64(limit) ? size - UInt64(limit) : 0)
        let data = (try? handle.readToEnd()) ?? Data()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func noOutput(_ tool: String, _ what: String, _ diagnostics: String) -> JobFailure {
        var message = "\(tool) exited 0 but produced no PDF (\(what))"
        if !diagnostics.isEmpty { message += ": \(lastLines(diagnostics))" }
        return JobFailure(.transient, code: "no_output", message)
    }

    /// The last few lines of a tool's log: enough to see why, short enough for a job record.
    package static func lastLines(_ text: String, count: Int = 5) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).joined(separator: " | ")
    }
}
