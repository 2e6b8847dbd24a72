import Foundation

/// Where a tool's executable is, for the converters' and the PDF operations' defaults.
package enum ToolPath {
    /// `preferred` when it is executable (Debian's /usr/bin/chromium is a shell wrapper that
    /// adds flags we do not want), else `name` found on PATH, else `preferred` anyway.
    package static func locate(_ name: String, preferring preferred: String) -> String {
        if FileManager.default.isExecutableFile(atPath: preferred) { return preferred }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return preferred
    }
}
