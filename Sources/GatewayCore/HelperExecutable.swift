import Foundation

/// The gateway's helpers (the PDF inspector's workers, the converter sandbox's launcher) are the
/// `pdfgate` executable itself, run with a hidden subcommand: any build of the `pdfgate` product
/// is a complete install, and there is no second binary to forget.
public enum HelperExecutable {
    /// The product name.
    public static let name = "pdfgate"

    /// Hidden subcommands, one per helper.
    public enum Subcommand: String, Sendable {
        /// A Poppler worker answering inspection requests on stdin/stdout (`GatewayPDF`).
        case inspectWorker = "inspect-worker"
        /// Applies a converter's resource limits, then runs the converter (`GatewaySandbox`).
        case sandboxExec = "sandbox-exec"
        /// Draws a watermark's one-page stamp with cairo (`GatewayPDF.StampPage`).
        case stampPage = "stamp-page"
    }

    /// `$PDFGATE_EXECUTABLE`; else the running executable when it is `pdfgate`; else a `pdfgate`
    /// beside it (`swift test` runs a test bundle that sits beside the built products); else
    /// `pdfgate` on `PATH`. Nil when none is executable.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit = environment["PDFGATE_EXECUTABLE"], !explicit.isEmpty { return explicit }
        if let running = runningExecutable() {
            if (running as NSString).lastPathComponent == name { return running }
            let sibling = (running as NSString).deletingLastPathComponent + "/" + name
            if isExecutable(sibling) { return sibling }
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// The path `locate()` finds, or the bare name (which fails to start with a message naming it).
    public static var path: String { locate() ?? name }

    /// `/proc/self/exe`, which names the real file even when started through a symlink.
    static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return Bundle.main.executablePath }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return access(path, X_OK) == 0 && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
