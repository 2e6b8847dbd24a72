import Foundation
import GatewayPDFTools
import GatewayProcess
import GatewaySandbox
import Synchronization

/// Whether each local tool can start here, for `/readyz`: not only that its program exists but
/// that it runs far enough to convert (LibreOffice's Python can import `uno`, Calibre can load
/// its Qt modules, Chromium prints its version). A failure names the Debian package to install.
/// A tool that passed once is not checked again unless asked (`fresh`): packages seldom vanish
/// under a running gateway, and readiness is polled often.
final class ToolCheck: Sendable {
    /// One tool's check: a short command and the package that provides what it needs.
    struct Probe: Sendable {
        var tool: LocalTool
        var executable: String
        var arguments: [String]
        var packages: String
    }

    private let probes: [Probe]
    /// The probes that passed, by index.
    private let passed = Mutex<Set<Int>>([])

    init(configuration: LocalConverter.Configuration) {
        let calibreDebug = (configuration.ebookConvertPath as NSString).deletingLastPathComponent + "/calibre-debug"
        probes = [
            Probe(
                tool: .libreOffice,
                executable: configuration.sofficePath,
                arguments: ["--version"],
                packages: "libreoffice-writer libreoffice-calc libreoffice-impress"
            ),
            Probe(tool: .libreOffice, executable: configuration.pythonPath, arguments: ["-c", "import uno"], packages: "python3-uno"),
            Probe(tool: .chromium, executable: configuration.chromiumPath, arguments: ["--headless", "--version"], packages: "chromium"),
            Probe(
                tool: .calibre,
                executable: calibreDebug,
                arguments: ["-c", "from calibre.ebooks.conversion.cli import create_option_parser; from calibre.gui2 import must_use_qt"],
                packages: "calibre"
            ),
            Probe(tool: .pdf, executable: LocalPDFOperator.defaultQPDF, arguments: ["--version"], packages: "qpdf"),
            Probe(tool: .pdf, executable: LocalPDFOperator.defaultGhostscript, arguments: ["--version"], packages: "ghostscript"),
            Probe(tool: .scan, executable: configuration.pythonPath, arguments: ["-c", "import img2pdf"], packages: "img2pdf"),
        ]
    }

    /// Why `tool` cannot start, or nil when it can; `fresh` runs the probes that passed before too.
    func problem(_ tool: LocalTool, fresh: Bool = false) async -> String? {
        for (index, probe) in probes.enumerated() where probe.tool == tool && (fresh || !passed.withLock({ $0.contains(index) })) {
            if let problem = await Self.run(probe) {
                passed.withLock { _ = $0.remove(index) }
                return problem
            }
            passed.withLock { _ = $0.insert(index) }
        }
        return nil
    }

    private static func run(_ probe: Probe) async -> String? {
        let install = "install Debian's \(probe.packages) (scripts/install-deps.sh does)"
        let name = (probe.executable as NSString).lastPathComponent
        guard FileManager.default.isExecutableFile(atPath: probe.executable) else { return "\(name) is not installed; \(install)" }
        let spec = ChildSpec(
            executable: probe.executable,
            arguments: probe.arguments,
            environment: ProcessInfo.processInfo.environment.merging(["QTWEBENGINE_DISABLE_SANDBOX": "1", "QT_QPA_PLATFORM": "offscreen"]) { $1 },
            workingDirectory: "/",
            stdout: .null,
            stderr: .null
        )
        do throws(SpawnFailure) {
            switch try await runOneShot(spec, deadline: .now + .seconds(20), limits: ResourceLimits()) {
            case .finished(.exited(0)): return nil
            case .finished(let termination):
                return "\(name) \(([probe.executable] + probe.arguments).dropFirst().joined(separator: " ")) \(termination.description); \(install)"
            case .timedOut: return "\(name) did not answer within 20 s"
            case .cancelled: return "the check was cancelled"
            case .limitExceeded(let kind): return "\(name) went past its \(kind) limit at start"
            }
        } catch {
            return "\(name) could not be started: \(error.message); \(install)"
        }
    }
}
