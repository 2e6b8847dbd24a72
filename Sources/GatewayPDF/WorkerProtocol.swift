import Foundation
import GatewayLibraryModel
import GatewayWire

/// The inspect worker's wire format: one JSON object per line each way, one request at a time.
///
///     → {"path": "/abs/file.pdf", "thumbnail": {"output_path": "/abs/thumb.png", "width": 200},
///        "text_output_path": "/abs/file.txt"}
///     ← {"ok": {…PDFInfo…}, "text": {"pages": 3, "truncated": false}}
///       or  {"error": {"kind": "damaged", "message": "…"}}
///
/// The pages' text goes to a file, not into the answer: a line is capped at `maxLineBytes`, and
/// a document's text may be 2 MiB (`DocumentText.maxDocumentBytes`).
package enum WorkerProtocol {
    package struct Request: Codable, Equatable, Sendable {
        package var path: String
        package var thumbnail: Thumbnail?
        /// Where to write the pages' text, joined by form feeds; nil for no text.
        package var textOutputPath: String?

        package init(path: String, thumbnail: ThumbnailRequest?, textOutputPath: String? = nil) {
            self.path = path
            self.thumbnail = thumbnail.map { Thumbnail(outputPath: $0.outputPath, width: $0.width) }
            self.textOutputPath = textOutputPath
        }

        enum CodingKeys: String, CodingKey {
            case path, thumbnail
            case textOutputPath = "text_output_path"
        }

        package var thumbnailRequest: ThumbnailRequest? {
            thumbnail.map { ThumbnailRequest(outputPath: $0.outputPath, width: $0.width) }
        }

        // An explicit null keeps the line self-describing for anyone reading a trace.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(thumbnail, forKey: .thumbnail)
            try container.encodeIfPresent(textOutputPath, forKey: .textOutputPath)
        }
    }

    /// ThumbnailRequest with the snake_case keys of the wire format.
    package struct Thumbnail: Codable, Equatable, Sendable {
        package var outputPath: String
        package var width: Int

        enum CodingKeys: String, CodingKey {
            case outputPath = "output_path"
            case width
        }
    }

    /// Exactly one of `ok` and `error` is set.
    package struct Response: Codable, Equatable, Sendable {
        package var ok: PDFInfo?
        package var error: InspectionError?
        /// Set with `ok` when the request asked for text.
        package var text: PageTextResult?

        package init(_ result: Result<PDFInfo, InspectionError>, text: PageTextResult? = nil) {
            switch result {
            case .success(let info): ok = info
            case .failure(let failure): error = failure
            }
            self.text = text
        }

        package var result: Result<PDFInfo, InspectionError>? {
            if let ok { return .success(ok) }
            if let error { return .failure(error) }
            return nil
        }
    }

    /// A line cap: a worker that sends more than this is broken, and the parent must not buffer
    /// without bound.
    package static let maxLineBytes = 1 << 20

    /// Dates as seconds since 1970: exact for PDF dates and readable in a trace.
    package static func encodeLine(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value)) + [UInt8(ascii: "\n")]
    }

    /// The response line, written by hand: `JSONEncoder` with sorted keys cost the worker more
    /// per file than Poppler's parse of a small PDF. `decodeLine` reads it like `encodeLine`'s.
    package static func encodeResponseLine(_ response: Response) -> [UInt8] {
        var out = JSONOutput(capacity: 512)
        out.beginObject()
        if let info = response.ok {
            out.key("ok")
            out.beginObject()
            out.key("page_count")
            out.int(Int64(info.pageCount))
            for (key, value) in [
                ("title", info.title), ("author", info.author), ("subject", info.subject), ("keywords", info.keywords),
                ("creator", info.creator), ("producer", info.producer), ("pdf_version", info.pdfVersion), ("pdfa", info.pdfa),
            ] as [(StaticString, String?)] {
                out.key(key)
                out.string(value)
            }
            for (key, value) in [("created_at", info.createdAt), ("modified_at", info.modifiedAt)] as [(StaticString, Date?)] {
                out.key(key)
                if let value { out.exactDouble(value.timeIntervalSince1970) } else { out.null() }
            }
            out.key("page_width")
            out.exactDouble(info.pageWidth)
            out.key("page_height")
            out.exactDouble(info.pageHeight)
            out.key("encrypted")
            out.bool(info.encrypted)
            out.key("linearized")
            out.bool(info.linearized)
            out.endObject()
        }
        if let text = response.text {
            out.key("text")
            out.beginObject()
            out.key("pages")
            out.int(Int64(text.pages))
            out.key("truncated")
            out.bool(text.truncated)
            if let failure = text.failure {
                out.key("failure")
                out.string(failure)
            }
            out.endObject()
        }
        if let error = response.error {
            out.key("error")
            out.beginObject()
            out.key("kind")
            out.string(error.kind.rawValue)
            out.key("message")
            out.string(error.message)
            out.endObject()
        }
        out.endObject()
        return out.bytes + [UInt8(ascii: "\n")]
    }

    package static func decodeLine<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(type, from: Data(line))
    }
}
