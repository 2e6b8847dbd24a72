import Foundation
import GatewayCore

/// The operator's folder of fonts (`--fonts DIR`): a company's typefaces, TrueType, OpenType or
/// collections, in the folder or below it.
public struct FontFolder: Sendable, Equatable {
    /// The folder's absolute path.
    public let path: String

    /// The extensions fontconfig reads here.
    public static let fontExtensions: Set<String> = ["ttf", "otf", "ttc", "otc"]

    /// The folder at `path`; throws when it is not a readable directory.
    public init(path: String) throws(FontFolderError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw FontFolderError("the font folder \(absolute) does not exist; create it or point --fonts at a folder of .ttf/.otf/.ttc files")
        }
        guard isDirectory.boolValue else {
            throw FontFolderError("--fonts \(absolute) is a file; give the folder that holds the fonts")
        }
        guard FileManager.default.isReadableFile(atPath: absolute) else {
            throw FontFolderError("the font folder \(absolute) cannot be read by this process; make it readable")
        }
        self.path = absolute
    }

    /// What changes when a font is added, removed or replaced: each font file's path, size and
    /// modification time, in order. Fonts are few; reading their directory entries is cheap.
    public func fingerprint() -> String {
        let folder = URL(fileURLWithPath: path)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { return "" }
        var entries: [String] = []
        for case let file as URL in walk where Self.fontExtensions.contains(file.pathExtension.lowercased()) {
            let values = try? file.resourceValues(forKeys: Set(keys))
            guard values?.isRegularFile == true else { continue }
            let modified = values?.contentModificationDate?.timeIntervalSince1970 ?? 0
            entries.append("\(file.path)|\(values?.fileSize ?? 0)|\(modified)")
        }
        return entries.sorted().joined(separator: "\n")
    }
}

/// Why a font folder cannot be used, said so the operator can fix it.
public struct FontFolderError: GatewayError {
    public var code: String { "invalid_font_folder" }
    public let message: String
    init(_ message: String) { self.message = message }
}
