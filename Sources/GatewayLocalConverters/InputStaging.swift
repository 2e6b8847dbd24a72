import Foundation
import GatewayJobModel
import GatewayPDFTools

/// Puts an upload where a converter wants it: tools pick their importer by extension, and the
/// staged upload's own name is the engine's business, so each job gets `input.<original ext>`.
enum InputStaging {
    /// A hard link (a copy across file systems) named `<baseName>.<ext>` in `directory`. Not a
    /// symlink: the tool runs in a sandbox that sees `directory` and not where the upload lies.
    static func stage(_ path: String, originalFilename: String, in directory: String, baseName: String = "input") throws(JobFailure) -> String {
        let ext = fileExtension(of: originalFilename)
        let staged = directory + "/" + baseName + (ext.isEmpty ? "" : "." + ext)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw JobFailure(.transient, code: "input_missing", "the staged upload \(path) is missing or unreadable")
        }
        try ToolFiles.makeDirectory(directory)
        try ToolFiles.linkOrCopy(path, to: staged)
        return staged
    }

    /// The lower-cased extension of a client-supplied name, reduced to `[a-z0-9]` so it is safe
    /// in a path and on a command line.
    static func fileExtension(of filename: String) -> String {
        let ext = (filename as NSString).pathExtension.lowercased()
        guard ext.count <= 10, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return ext
    }
}
