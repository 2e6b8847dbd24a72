import Foundation

/// What a file is called when it arrives without a name: its `Content-Type` says the extension
/// (`application/vnd.openxmlformats-officedocument.wordprocessingml.document` → `docx`), read
/// from the system's table (`/etc/mime.types`, Debian's `media-types`) rather than a copy of it.
public enum MediaTypes {
    /// The extensions of each media type, in the table's order, types lowercased.
    static let table: [String: [String]] = read("/etc/mime.types")

    /// The first extension of `mediaType` (parameters ignored) that some job type converts:
    /// `text/plain` lists `asc` before `txt`, and only `txt` is a document. Nil for a type the
    /// table does not list or whose files no job converts (`application/octet-stream`).
    public static func fileExtension(of mediaType: String) -> String? {
        let essence = mediaType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        let key = essence.trimmingCharacters(in: .whitespaces).lowercased()
        return table[key]?.first { SourceFormats.isConverted($0) }
    }

    /// The media type of a file named `filename`, by its extension; `application/octet-stream`
    /// when the table does not know it.
    public static func mediaType(ofFile filename: String) -> String {
        let ext = (filename as NSString).pathExtension.lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }

    /// The table read the other way: the first type listing each extension.
    static let byExtension: [String: String] = {
        var types: [String: String] = [:]
        for (type, extensions) in table.sorted(by: { $0.key < $1.key }) {
            for ext in extensions where types[ext] == nil { types[ext] = type }
        }
        return types
    }()

    /// `type/subtype ext ext …` per line; `#` starts a comment.
    static func read(_ path: String) -> [String: [String]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var table: [String: [String]] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count > 1 else { continue }
            table[words[0].lowercased(), default: []] += words.dropFirst().map { $0.lowercased() }
        }
        return table
    }
}
