import Foundation

/// A file attached to a PDF (Gotenberg's `embeds`; an invoice's XML beside its PDF, say). Like a
/// watermark's image, its bytes come with the client's request only: the intake moves them
/// beside the job's staged input (`JobSecrets.carriedFiles`), so the job's row and answers carry
/// its name, SHA-256 and size.
public struct PDFAttachment: Sendable, Equatable, Codable {
    /// The name readers show and save it under.
    public var name: String
    public var sha256: String
    public var bytes: Int
    public var data: Data?
    /// Its media type (`/Subtype` of the embedded file); nil: guessed from the name.
    public var mimeType: String?
    /// How it relates to the document (`/AFRelationship`, PDF/A-3's associated files); nil:
    /// attached without one, as a plain attachment.
    public var relationship: Relationship?

    public init(name: String, sha256: String, bytes: Int, data: Data? = nil, mimeType: String? = nil, relationship: Relationship? = nil) {
        self.name = name
        self.sha256 = sha256
        self.bytes = bytes
        self.data = data
        self.mimeType = mimeType
        self.relationship = relationship
    }

    /// PDF/A-3's `/AFRelationship` values (ISO 19005-3): an e-invoice's XML is the
    /// `Alternative` of its PDF, a spreadsheet behind a chart its `Source`.
    public enum Relationship: String, Sendable, Codable, CaseIterable {
        case source = "Source"
        case data = "Data"
        case alternative = "Alternative"
        case supplement = "Supplement"
        case unspecified = "Unspecified"
    }

    /// Why `text` cannot be a media type: `type/subtype`, as qpdf writes it into the PDF.
    public static func mediaTypeProblem(_ text: String) -> String? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let token = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$&^_.+-".contains($0)) }
        }
        guard parts.count == 2, parts.allSatisfy(token), text.count <= 127 else {
            return "'\(text)' is not a media type such as text/xml or application/json"
        }
        return nil
    }

    /// At most this many files in one `attach`, and this many bytes each and in all: they wait
    /// beside the job as JSON until it runs.
    public static let maxCount = 32
    public static let maxBytes = 16 << 20
    public static let maxTotalBytes = 32 << 20

    /// `data` attached as `name`, or why it cannot be (said of `field`).
    public static func file(_ data: Data, name: String, field: String) throws(OperationError) -> PDFAttachment {
        if let problem = problem(with: name) { throw OperationError(.invalid, code: "invalid_operation", "\(field).name \(problem)") }
        guard data.count <= maxBytes else {
            throw OperationError(
                .invalid,
                code: "invalid_operation",
                "\(field) is \(data.count) bytes; an attached file may have at most \(maxBytes)"
            )
        }
        return PDFAttachment(name: name, sha256: JobSecrets.sha256(data), bytes: data.count, data: data)
    }

    /// Why `name` cannot name an attached file: it is a file name, not a path.
    static func problem(with name: String) -> String? {
        // As openapi.yaml's schema says it: code points, C0 controls and DEL.
        if name.isEmpty || name.unicodeScalars.count > 255 { return "must have 1 to 255 characters" }
        if name == "." || name == ".." || name.contains("/") || name.contains("\\") { return "'\(name)' must be a file name, not a path" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "must have no control characters" }
        return nil
    }

    /// Refuses a list that is empty, too long, too big, or names a file twice.
    public static func check(_ files: [PDFAttachment], field: String) throws(OperationError) {
        guard (1...maxCount).contains(files.count) else {
            throw OperationError(.invalid, code: "invalid_operation", "\(field) lists 1 to \(maxCount) files, not \(files.count)")
        }
        let total = files.reduce(0) { $0 + $1.bytes }
        guard total <= maxTotalBytes else {
            throw OperationError(
                .invalid,
                code: "invalid_operation",
                "\(field) holds \(total) bytes; attached files may have at most \(maxTotalBytes) in all"
            )
        }
        var seen: Set<String> = []
        // Well-formed but ambiguous (no schema can say names must differ): 422.
        for file in files where !seen.insert(file.name).inserted {
            throw OperationError(.outOfRange, code: "duplicate_name", "\(field) names '\(file.name)' twice; each attached file needs its own name")
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, sha256, bytes, data, relationship
        case mimeType = "mime_type"
    }

    /// A client's `{name, data}` (data in base64, checked here), or a stored `{name, sha256, bytes}`.
    public init(from decoder: any Decoder) throws {
        let at = decoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        let field = at.hasPrefix(".") ? String(at.dropFirst()) : at
        try ConversionOptions.refuseUnknownKeys(in: decoder, allowed: CodingKeys.allCases.map(\.rawValue), what: field)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let name = try? container.decode(String.self, forKey: .name) else {
            throw OperationError(.invalid, code: "invalid_operation", "\(field).name is required (the file name readers show)")
        }
        if container.contains(.data) {
            guard let text = try? container.decode(String.self, forKey: .data),
                let data = Data(base64Encoded: text)
            else {
                throw OperationError(.invalid, code: "invalid_operation", "\(field).data must be the file in base64, padded, without line breaks")
            }
            self = try Self.file(data, name: name, field: field)
        } else {
            guard let sha256 = try? container.decode(String.self, forKey: .sha256) else {
                throw OperationError(.invalid, code: "invalid_operation", "\(field).data is required (the file in base64)")
            }
            self.init(name: name, sha256: sha256, bytes: (try? container.decode(Int.self, forKey: .bytes)) ?? 0)
        }
        if container.contains(.mimeType) {
            guard let type = try? container.decode(String.self, forKey: .mimeType) else {
                throw OperationError(.invalid, code: "invalid_operation", "\(field).mime_type must be a string such as text/xml")
            }
            if let problem = Self.mediaTypeProblem(type) {
                throw OperationError(.invalid, code: "invalid_operation", "\(field).mime_type \(problem)")
            }
            mimeType = type
        }
        if container.contains(.relationship) {
            guard let text = try? container.decode(String.self, forKey: .relationship), let value = Relationship(rawValue: text) else {
                throw OperationError(
                    .invalid,
                    code: "invalid_operation",
                    "\(field).relationship must be one of \(Relationship.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            relationship = value
        }
    }

    /// Never the bytes: they wait beside the job's input while it runs.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(bytes, forKey: .bytes)
        try container.encodeIfPresent(mimeType, forKey: .mimeType)
        try container.encodeIfPresent(relationship, forKey: .relationship)
    }
}
