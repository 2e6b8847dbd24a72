import Foundation
import GatewayLibraryModel
import Hummingbird

/// A file as an HTTP answer: streamed in chunks, with `ETag`/`If-None-Match` and a single
/// `Range` (206, or 416 when it cannot be satisfied). Multi-range requests get the whole file,
/// which RFC 9110 allows.
package struct FileResponse {
    package var path: String
    package var contentType: String
    /// Without quotes; a strong validator (the content hash).
    package var etag: String
    package var size: Int64
    package var filename: String?

    /// A library document's PDF, named after the document, its SHA-256 the validator; fetched
    /// into the local cache first when the library keeps documents in a bucket.
    package init(document: Document, in library: any DocumentLibrary) async throws(LibraryError) {
        self.init(
            path: try await library.readableFile(of: document),
            contentType: "application/pdf",
            etag: document.sha256,
            size: document.size,
            filename: document.name + ".pdf"
        )
    }

    package init(path: String, contentType: String, etag: String, size: Int64, filename: String?) {
        self.path = path
        self.contentType = contentType
        self.etag = etag
        self.size = size
        self.filename = filename
    }

    package func response(for request: Request, context: GatewayRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.eTag] = "\"\(etag)\""
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = contentType
        headers[.cacheControl] = "private, no-cache"
        if let filename { headers[.contentDisposition] = Self.disposition("inline", filename: filename) }
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { Self.sameTag($0, etag) }) || match == "*" {
            return Response(status: .notModified, headers: headers)
        }
        var range: ClosedRange<Int64>?
        if let header = request.headers[.range], request.headers[.ifRange].map({ Self.sameTag(Substring($0), etag) }) ?? true {
            switch Self.parseRange(header, size: size) {
            case .whole: break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                throw APIError(
                    .rangeNotSatisfiable,
                    "range_not_satisfiable",
                    "the range '\(header)' is outside the file's \(size) bytes",
                    headers: headers
                )
            case .part(let part): range = part
            }
        }
        let fileIO = FileIO()
        if size == 0 {
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers, body: .init())
        }
        if let range {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            let body = try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: try await fileIO.loadFile(path: path, context: context))
    }

    /// `type; filename="…"; filename*=UTF-8''…`: an ASCII stand-in for old clients (quotes,
    /// backslashes and what is not ASCII become `_`), the exact name for the rest (RFC 6266).
    package static func disposition(_ type: String, filename: String) -> String {
        let ascii = filename.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? String($0) : "_" }.joined()
        let encoded = filename.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ascii
        return "\(type); filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }

    enum RangeAnswer: Equatable {
        case whole
        case part(ClosedRange<Int64>)
        case unsatisfiable
    }

    /// `bytes=a-b`, `bytes=a-`, `bytes=-n`; anything else (or several ranges) means the whole file.
    static func parseRange(_ header: String, size: Int64) -> RangeAnswer {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return .whole }
        let first = spec[0].trimmingCharacters(in: .whitespaces)
        let last = spec[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .part(start...(size - 1)) }
        guard let end = Int64(last), end >= start else { return .whole }
        return .part(start...min(end, size - 1))
    }

    static func sameTag(_ candidate: Substring, _ etag: String) -> Bool {
        var tag = candidate.trimmingCharacters(in: .whitespaces)
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        return tag == "\"\(etag)\""
    }
}
