import Foundation
import GatewayPDFTools
import GatewaySandbox
import Synchronization

/// The versions of the tools this node converts with, as each prints it (`qpdf --version`…),
/// for Gotenberg's `GET /debug`. Asked once, on first use: LibreOffice alone takes a second to
/// say it, and a version does not change under a running gateway.
final class ToolVersions: Sendable {
    /// Gotenberg's module name (or ours where Gotenberg has none) → the command that prints it.
    private let commands: [String: [String]]
    private let known = Mutex<[String: String]?>(nil)

    init(configuration: LocalConverter.Configuration) {
        let calibre = (configuration.ebookConvertPath as NSString).deletingLastPathComponent + "/ebook-convert"
        commands = [
            "chromium": [configuration.chromiumPath, "--headless", "--version"],
            "libreoffice-api": [configuration.sofficePath, "--version"],
            "qpdf": [LocalPDFOperator.defaultQPDF, "--version"],
            "exiftool": [PDFToolRunner.defaultExifTool, "-ver"],
            "ghostscript": [LocalPDFOperator.defaultGhostscript, "--version"],
            "calibre": [calibre, "--version"],
            "tesseract": [OCREngine.defaultTesseract, "--version"],
        ]
    }

    /// Module → first line its tool printed; a tool that is missing or fails is left out.
    func all() async -> [String: String] {
        if let known = known.withLock({ $0 }) { return known }
        var versions: [String: String] = [:]
        await withTaskGroup(of: (String, String?).self) { group in
            for (module, command) in commands {
                group.addTask { (module, await Self.firstLine(of: command)) }
            }
            for await (module, line) in group { versions[module] = line }
        }
        known.withLock { $0 = versions }
        return versions
    }

    private static func firstLine(of command: [String]) async -> String? {
        guard let executable = command.first, FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let environment = ProcessInfo.processInfo.environment.merging(["QTWEBENGINE_DISABLE_SANDBOX": "1", "QT_QPA_PLATFORM": "offscreen"]) { $1 }
        guard case .success(let text) = await ToolOutput.run(executable, Array(command.dropFirst()), environment: environment) else { return nil }
        let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
        return line?.isEmpty == false ? line : nil
    }
}
