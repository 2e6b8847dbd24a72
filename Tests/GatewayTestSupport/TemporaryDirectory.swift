import Foundation

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "pdfgate-test") {
        let base = FileManager.default.temporaryDirectory.path + "/\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    public func file(_ name: String) -> String { path + "/" + name }
}
