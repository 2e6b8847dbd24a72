import Foundation

/// Where everything lives under a store root (DESIGN §6).
public struct StorePaths: Sendable {
    /// Absolute, standardized store root, e.g. `/srv/pdfgate/data`.
    public let root: String

    public init(root: String) {
        let absolute = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        self.root = URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// Private state of the gateway, hidden from owners' trees by its leading dot.
    public var meta: String { root + "/.pdfgate" }
    public var database: String { meta + "/gateway.sqlite" }
    public var staging: String { meta + "/staging" }
    /// Files on their way into the library: published from here with a no-replace rename.
    public var filing: String { meta + "/filing" }
    /// Folders being deleted recursively are renamed here first, so a crash leaves no half tree.
    public var trash: String { meta + "/trash" }
    public var thumbnails: String { meta + "/thumbnails" }
    public var lockFile: String { meta + "/library.lock" }

    public func absolute(_ relative: String) -> String { root + "/" + relative }
}
