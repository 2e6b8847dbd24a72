import Foundation
import GatewayHTTPServing
import GatewayLibraryModel

/// Where a WebDAV request points in the caller's library: the root, a folder, or a file in a
/// folder. Paths are read from the raw request target, segment by segment, so an encoded slash
/// (`%2F`) stays inside its segment and is refused rather than read as a separator.
struct DAVPath: Equatable, Sendable, CustomStringConvertible {
    /// The decoded segments under `/dav/`; empty for the root.
    var segments: [String]
    /// Whether the target ended with `/` (a collection named as one).
    var trailingSlash: Bool

    static let mount = "/dav"
    /// The deepest path served; deeper ones are refused before any lookup.
    static let maxSegments = 64
    static let maxBytes = 4096

    init(segments: [String], trailingSlash: Bool = false) {
        self.segments = segments
        self.trailingSlash = trailingSlash
    }

    /// Reads the path of a request target (`/dav/A/B%20C/x.pdf`); query and fragment ignored.
    init(target: String) throws(APIError) {
        var path = Substring(target)
        guard !path.contains("#") else {
            throw APIError(.badRequest, "invalid_dav_path", "a request path cannot carry a fragment ('#'); encode it as %23 in a name")
        }
        if let cut = path.firstIndex(of: "?") { path = path[..<cut] }
        guard path.utf8.count <= Self.maxBytes else {
            throw APIError(.uriTooLong, "dav_path_too_long", "the path is over \(Self.maxBytes) bytes; use shorter folder and file names")
        }
        guard path == Self.mount || path.hasPrefix(Self.mount + "/") else {
            throw APIError(.notFound, "dav_not_found", "WebDAV is served under \(Self.mount)/")
        }
        let rest = path.dropFirst(Self.mount.count)
        trailingSlash = rest.hasSuffix("/")
        var segments: [String] = []
        for raw in rest.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(raw).removingPercentEncoding else {
                throw APIError(.badRequest, "invalid_dav_path", "path segment '\(raw)' is not valid percent-encoded UTF-8")
            }
            if decoded == "." || decoded == ".." {
                throw APIError(.badRequest, "invalid_dav_path", "path segments '.' and '..' are not allowed; name the folder itself")
            }
            if decoded.contains("/") || decoded.contains("\\") {
                throw APIError(.badRequest, "invalid_dav_path", "path segment '\(raw)' encodes a slash; a name cannot contain '/'")
            }
            if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw APIError(.badRequest, "invalid_dav_path", "path segment '\(raw)' contains a control character; rename it")
            }
            segments.append(decoded)
        }
        guard segments.count <= Self.maxSegments else {
            throw APIError(.badRequest, "invalid_dav_path", "the path is \(segments.count) folders deep; at most \(Self.maxSegments) are served")
        }
        self.segments = segments
    }

    var isRoot: Bool { segments.isEmpty }
    var name: String? { segments.last }
    var parent: DAVPath { DAVPath(segments: Array(segments.dropLast()), trailingSlash: true) }
    /// The folder path the library uses (`A/B`), for the path as a folder.
    var folderPath: String { segments.joined(separator: "/") }
    var folderReference: FolderReference { isRoot ? .root : .path(folderPath) }
    var description: String { "/" + segments.joined(separator: "/") }

    /// Whether `self` is `other` or lies under it.
    func isWithin(_ other: DAVPath) -> Bool { segments.starts(with: other.segments) }

    /// The URL path of this item (a folder with its trailing slash), each segment encoded.
    func href(collection: Bool) -> String {
        var path = Self.mount + "/"
        for (index, segment) in segments.enumerated() {
            if index > 0 { path += "/" }
            path += Self.encode(segment)
        }
        return collection && !segments.isEmpty ? path + "/" : path
    }

    func appending(_ name: String) -> DAVPath { DAVPath(segments: segments + [name]) }

    /// `segment` percent-encoded, every byte but RFC 3986's unreserved characters and a few
    /// sub-delims. Byte by byte, not with Foundation's `addingPercentEncoding`: a depth-1
    /// PROPFIND of a large folder encodes one name per document.
    static func encode(_ segment: String) -> String {
        if segment.utf8.allSatisfy({ leftAsIs[Int($0)] }) { return segment }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count * 3)
        for byte in segment.utf8 {
            if leftAsIs[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Which bytes a segment keeps as they are (RFC 3986 unreserved and `!$&'()*+,;=:@`).
    private static let leftAsIs: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~!$&'()*+,;=:@".utf8.contains(UInt8(byte))
        }
    }
    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

/// A document's file name in WebDAV: its library name with `.pdf`.
enum DAVNames {
    static let pdfSuffix = ".pdf"

    /// The document name a file name stands for, nil when it is not a `.pdf` name or is a
    /// hidden one (`._Report.pdf` is the AppleDouble file macOS writes beside `Report.pdf`).
    static func documentName(_ fileName: String) -> String? {
        guard fileName.count > pdfSuffix.count, fileName.hasSuffix(pdfSuffix), !fileName.hasPrefix(".") else { return nil }
        return String(fileName.dropLast(pdfSuffix.count))
    }

    static func fileName(_ document: Document) -> String { document.name + pdfSuffix }
}
