import Foundation
import GatewayJobModel
import ZIPFoundation

/// An HTML page with the files it loads, as one `.zip` upload: `index.html` at its root (the
/// name Gotenberg's HTML route takes), its styles, images, fonts and scripts beside it. Chromium
/// is served the page and those files from one made-up origin (`VettingProxy`); nothing else.
///
/// The archive is someone else's: entries are unpacked by their own bounds — at most
/// `maxEntries`, `maxBytes` in all as they are written (not as they claim), names relative and
/// inside the bundle — so no zip bomb fills the disk and no entry lands outside its directory.
public enum HTMLBundle {
    public static let fileExtension = "zip"
    public static let maxEntries = 1000
    public static let maxBytes: Int64 = 256 << 20

    /// The unpacked bundle: the page, and every other file by its path in the bundle.
    public struct Unpacked: Sendable {
        public var index: String
        public var assets: [String: String]
    }

    /// Unpacks `archive` into `directory` (created).
    public static func unpack(_ archive: String, into directory: String) throws(JobFailure) -> Unpacked {
        let zip: Archive
        do {
            zip = try Archive(url: URL(fileURLWithPath: archive), accessMode: .read)
        } catch {
            throw refused("is not a zip archive (\(error))")
        }
        var files: [String: String] = [:]
        var written: Int64 = 0
        var count = 0
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for entry in zip where entry.type == .file {
                count += 1
                guard count <= maxEntries else { throw refused("has more than \(maxEntries) files") }
                guard let name = relativePath(entry.path) else { throw refused("has an entry named '\(entry.path)', outside the bundle") }
                let target = directory + "/" + name
                try FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true
                )
                guard FileManager.default.createFile(atPath: target, contents: nil), let handle = FileHandle(forWritingAtPath: target) else {
                    throw JobFailure(.transient, code: "storage_error", "cannot unpack '\(name)' of the HTML bundle")
                }
                defer { try? handle.close() }
                // Counted as written: a header may claim any size.
                _ = try zip.extract(entry, skipCRC32: false) { chunk in
                    written += Int64(chunk.count)
                    guard written <= maxBytes else { throw refused("unpacks to more than \(maxBytes >> 20) MiB") }
                    try handle.write(contentsOf: chunk)
                }
                files[name] = target
            }
        } catch let failure as JobFailure {
            throw failure
        } catch {
            throw refused("cannot be unpacked: \(error)")
        }
        // As Gotenberg matches it: the name exactly, its extension in any case.
        guard
            let index = files.keys.first(where: {
                ($0 as NSString).deletingPathExtension == "index" && ($0 as NSString).pathExtension.lowercased() == "html"
            })
        else {
            throw refused("has no index.html at its root; put the page there, beside the files it loads")
        }
        let page = files.removeValue(forKey: index)!
        return Unpacked(index: page, assets: files)
    }

    /// `path` as a relative path inside the bundle, or nil when it would leave it.
    static func relativePath(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !parts.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0"),
            parts.allSatisfy({ $0 != "." && $0 != ".." })
        else { return nil }
        return parts.joined(separator: "/")
    }

    /// Writes `index` and `assets` (name → file) into a new bundle at `archive`, stored as they
    /// are: a page's files are small or compressed already.
    public static func pack(index: String, assets: [(name: String, path: String)], to archive: String) throws {
        let zip = try Archive(url: URL(fileURLWithPath: archive), accessMode: .create)
        try zip.addEntry(with: "index.html", fileURL: URL(fileURLWithPath: index), compressionMethod: .none)
        for asset in assets where asset.name.lowercased() != "index.html" {
            try zip.addEntry(with: asset.name, fileURL: URL(fileURLWithPath: asset.path), compressionMethod: .none)
        }
    }

    private static func refused(_ problem: String) -> JobFailure {
        JobFailure(.rejected, code: "invalid_html_bundle", "the HTML bundle \(problem)")
    }
}
