import Foundation

extension PDFInspectorPool {
    /// The worker executable's name, as built by SwiftPM and installed beside `pdfgate`.
    public static let workerExecutableName = "pdfgate-inspect-worker"

    /// Finds `pdfgate-inspect-worker`: `$PDFGATE_INSPECT_WORKER`, else next to the running
    /// executable (which also covers `swift test`, whose test bundle sits beside the built
    /// products), else on `PATH`. Nil when none is executable.
    public static func defaultWorkerPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit = environment["PDFGATE_INSPECT_WORKER"], !explicit.isEmpty {
            return explicit
        }
        if let executable = currentExecutablePath() {
            let sibling = (executable as NSString).deletingLastPathComponent + "/" + workerExecutableName
            if isExecutable(sibling) { return sibling }
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(workerExecutableName)"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    private static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return Bundle.main.executablePath
    }

    private static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return access(path, X_OK) == 0 && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
