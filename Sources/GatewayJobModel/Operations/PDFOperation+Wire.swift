import Foundation

/// The JSON form, `{"op": "rotate", "angle": 90, "pages": "1-3"}`: strict, so a misspelt field
/// is an error naming it instead of an operation silently done another way. Passwords are read
/// but never written: a stored spec or a job's answer has none.
extension PDFOperation: Codable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The fields each operation takes, besides `op`.
    static let fields: [String: [String]] = [
        "split": ["every", "ranges", "pages"],
        "rotate": ["angle", "pages"],
        "pdfa": ["part"],
        "metadata": ["title", "author", "subject", "keywords", "creator", "creation_date", "modification_date", "tags"],
        "flatten": [],
        "encrypt": ["user_password", "owner_password", "allow"],
        // `image` is a client's base64 PNG or PDF; `image_sha256`, `image_bytes` and `image_format`
        // are what is kept of it.
        "watermark": [
            "text", "image", "image_sha256", "image_bytes", "image_format", "scale", "pages", "opacity", "font_size", "angle", "layer",
            "position", "offset", "sizing", "diagonal", "color", "stroke_color", "render_mode", "font",
        ],
        "optimize": ["images", "linearize"],
        "bookmarks": ["items"],
        // Each file is a client's `{name, data}` (base64), kept as `{name, sha256, bytes}`.
        "attach": ["files"],
        // `xml` is a client's base64 CII XML; `xml_sha256` and `xml_bytes` are what is kept of it.
        "facturx": ["conformance_level", "document_type", "version", "xml", "xml_sha256", "xml_bytes"],
        "ocr": ["languages", "force"],
        // `part`: PDF/A in the same export; none, PDF/UA alone.
        "pdfua": ["part"],
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let reader = Reader(container: container, path: decoder.codingPath)
        let op = try reader.required(String.self, "op")
        guard let allowed = Self.fields[op] else {
            throw reader.invalid("op", "'\(op)' is not an operation; use one of \(Self.names.joined(separator: ", "))")
        }
        for key in container.allKeys where key.stringValue != "op" && !allowed.contains(key.stringValue) {
            throw reader.invalid(
                key.stringValue,
                "is not a field of \(op)" + (allowed.isEmpty ? " (it takes none)" : "; it takes \(allowed.joined(separator: ", "))")
            )
        }
        switch op {
        case "split":
            let every = try reader.optional(Int.self, "every")
            let ranges = try reader.optional([String].self, "ranges")
            let pages = try reader.optional(String.self, "pages")
            switch (every, ranges, pages) {
            case (let every?, nil, nil):
                guard (1...PageSelection.maxPage).contains(every) else {
                    throw reader.invalid("every", "must be 1 to \(PageSelection.maxPage) (pages per part)")
                }
                self = .split(.every(every))
            case (nil, let ranges?, nil):
                guard !ranges.isEmpty, ranges.count <= Self.maxParts else {
                    throw reader.invalid("ranges", "needs 1 to \(Self.maxParts) page ranges, such as [\"1-3\", \"4-\"]")
                }
                self = .split(.ranges(try ranges.enumerated().map { index, text in try reader.pages(text, "ranges[\(index)]") }))
            case (nil, nil, let pages?):
                self = .split(.pages(try reader.pages(pages, "pages")))
            default:
                throw reader.invalid(
                    "every",
                    "split takes one of every (pages per part), ranges (one part per range) and pages (one part per page of the range)"
                )
            }
        case "rotate":
            let angle = try reader.required(Int.self, "angle")
            guard angle % 90 == 0, abs(angle) <= 360 else {
                throw reader.invalid("angle", "\(angle) is not a multiple of 90 from -360 to 360 (90, 180, 270, or negative)")
            }
            self = .rotate(angle: angle, pages: try reader.optional(String.self, "pages").map { try reader.pages($0, "pages") })
        case "pdfa":
            let part = try reader.optional(String.self, "part") ?? "2b"
            guard let parsed = PDFAPart(rawValue: part.lowercased()) else {
                throw reader.invalid("part", "'\(part)' is not one of \(PDFAPart.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .pdfa(parsed)
        case "pdfua":
            self = .pdfua(try reader.pdfaPart())
        case "metadata":
            let update = MetadataUpdate(
                title: try reader.optional(String.self, "title"),
                author: try reader.optional(String.self, "author"),
                subject: try reader.optional(String.self, "subject"),
                keywords: try reader.optional(String.self, "keywords"),
                creator: try reader.optional(String.self, "creator"),
                creationDate: try reader.date("creation_date"),
                modificationDate: try reader.date("modification_date"),
                tags: try reader.optional([String: MetadataTag].self, "tags") ?? [:]
            )
            guard update.tags.count <= MetadataUpdate.maxTags else {
                throw reader.invalid("tags", "has \(update.tags.count) tags; at most \(MetadataUpdate.maxTags)")
            }
            for (name, value) in update.tags.sorted(by: { $0.key < $1.key }) {
                if let problem = value.problem(name: name, field: reader.location("tags")) { throw problem }
            }
            guard update != MetadataUpdate() else {
                throw reader.invalid("title", "metadata needs at least one of \(Self.fields["metadata"]!.joined(separator: ", "))")
            }
            self = .metadata(update)
        case "flatten":
            self = .flatten
        case "encrypt":
            let user = try reader.optional(String.self, "user_password")
            let owner = try reader.optional(String.self, "owner_password")
            // A stored spec has none by design; `JobIntake` checks that a request brought one.
            var allow = Set(Encryption.Permission.allCases)
            if let names = try reader.optional([String].self, "allow") {
                allow = try Set(
                    names.map { name in
                        guard let permission = Encryption.Permission(rawValue: name) else {
                            throw reader.invalid(
                                "allow",
                                "'\(name)' is not a permission; use \(Encryption.Permission.allCases.map(\.rawValue).joined(separator: ", "))"
                            )
                        }
                        return permission
                    }
                )
            }
            self = .encrypt(Encryption(userPassword: user, ownerPassword: owner, allow: allow))
        case "watermark":
            self = .watermark(try reader.watermark())
        case "bookmarks":
            let items = try reader.required([PDFBookmark].self, "items")
            try PDFBookmark.check(items, field: reader.location("items"))
            self = .bookmarks(items)
        case "attach":
            let files = try reader.required([PDFAttachment].self, "files")
            try PDFAttachment.check(files, field: reader.location("files"))
            self = .attach(files)
        case "facturx":
            self = .facturX(try reader.facturX())
        case "ocr":
            let languages = try reader.optional([String].self, "languages") ?? OCR.defaultLanguages
            if let problem = OCR.languagesProblem(languages, field: reader.location("languages")) { throw problem }
            self = .ocr(OCR(languages: languages, force: try reader.optional(Bool.self, "force") ?? false))
        default:  // optimize
            let images = try reader.optional(String.self, "images") ?? "ebook"
            guard let parsed = Optimize.Images(rawValue: images) else {
                throw reader.invalid("images", "'\(images)' is not one of \(Optimize.Images.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .optimize(Optimize(images: parsed, linearize: try reader.optional(Bool.self, "linearize") ?? true))
        }
    }

    /// Parts a split may make.
    public static let maxParts = 1000

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: Key("op"))
        switch self {
        case .split(.every(let every)): try container.encode(every, forKey: Key("every"))
        case .split(.ranges(let ranges)): try container.encode(ranges, forKey: Key("ranges"))
        case .split(.pages(let pages)): try container.encode(pages, forKey: Key("pages"))
        case .rotate(let angle, let pages):
            try container.encode(angle, forKey: Key("angle"))
            try container.encodeIfPresent(pages, forKey: Key("pages"))
        case .pdfa(let part): try container.encode(part.rawValue, forKey: Key("part"))
        case .pdfua(let part): try container.encodeIfPresent(part?.rawValue, forKey: Key("part"))
        case .metadata(let update):
            try container.encodeIfPresent(update.title, forKey: Key("title"))
            try container.encodeIfPresent(update.author, forKey: Key("author"))
            try container.encodeIfPresent(update.subject, forKey: Key("subject"))
            try container.encodeIfPresent(update.keywords, forKey: Key("keywords"))
            try container.encodeIfPresent(update.creator, forKey: Key("creator"))
            try container.encodeIfPresent(update.creationDate.map(Self.formatDate), forKey: Key("creation_date"))
            try container.encodeIfPresent(update.modificationDate.map(Self.formatDate), forKey: Key("modification_date"))
            if !update.tags.isEmpty { try container.encode(update.tags, forKey: Key("tags")) }
        case .flatten: break
        case .encrypt(let encryption):
            // The passwords stay out; which permissions were granted is no secret.
            try container.encode(encryption.allow.map(\.rawValue).sorted(), forKey: Key("allow"))
        case .watermark(let mark):
            try Self.encode(mark, into: &container)
        case .optimize(let optimize):
            try container.encode(optimize.images.rawValue, forKey: Key("images"))
            try container.encode(optimize.linearize, forKey: Key("linearize"))
        case .bookmarks(let items): try container.encode(items, forKey: Key("items"))
        case .attach(let files): try container.encode(files, forKey: Key("files"))
        case .facturX(let invoice):
            try container.encode(invoice.conformanceLevel.rawValue, forKey: Key("conformance_level"))
            try container.encode(invoice.documentType.rawValue, forKey: Key("document_type"))
            try container.encode(invoice.version, forKey: Key("version"))
            // Never the bytes: they wait beside the job's input while it runs.
            try container.encode(invoice.xml.sha256, forKey: Key("xml_sha256"))
            try container.encode(invoice.xml.bytes, forKey: Key("xml_bytes"))
        case .ocr(let ocr):
            try container.encode(ocr.languages, forKey: Key("languages"))
            try container.encode(ocr.force, forKey: Key("force"))
        }
    }

    static func formatDate(_ date: Date) -> String { date.formatted(.iso8601) }

    /// Field reads whose errors say which operation field is wrong and how.
    struct Reader {
        /// `2026-11-24` or `2026-11-24T10:15:00Z` (a fraction, and an offset up to ±18:00, which is
        /// as far as Foundation's parser goes), as in openapi.yaml.
        nonisolated(unsafe) static let isoDate =
            /[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]((0[0-9]|1[0-7]):[0-5][0-9]|18:00)))?/
        let container: KeyedDecodingContainer<Key>
        let path: [any CodingKey]

        /// `operations[0].pages`: where `field` is in the request.
        func location(_ field: String) -> String {
            let at = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return at.isEmpty ? field : "\(at.hasPrefix(".") ? String(at.dropFirst()) : at).\(field)"
        }

        func invalid(_ field: String, _ problem: String) -> OperationError {
            OperationError(.invalid, code: "invalid_operation", "\(location(field)) \(problem)")
        }

        /// Fields that are each well formed but do not go together (422, as `/v1` answers a
        /// contradiction): a schema cannot say so, so a client's generator may well send them.
        func contradicting(_ field: String, _ problem: String) -> OperationError {
            OperationError(.outOfRange, code: "contradictory_operations", "\(location(field)) \(problem)")
        }

        func optional<T: Decodable>(_ type: T.Type, _ field: String) throws(OperationError) -> T? {
            do {
                return try container.decodeIfPresent(type, forKey: Key(field))
            } catch let error as OperationError {
                throw error  // a nested value's own check (an attached file's name), where it is
            } catch {
                throw invalid(field, "must be \(Self.kind(of: type))")
            }
        }

        func required<T: Decodable>(_ type: T.Type, _ field: String) throws(OperationError) -> T {
            guard let value = try optional(type, field) else { throw invalid(field, "is required (\(Self.kind(of: type)))") }
            return value
        }

        func pages(_ text: String, _ field: String) throws(OperationError) -> PageSelection {
            do {
                return try PageSelection(text, field: location(field))
            } catch  where error.kind == .outOfRange {
                throw error
            } catch {
                throw invalid(field, "'\(text)' is not a page or a range; write pages like 1-3,5,8- (1 is the first page)")
            }
        }

        /// `facturx`'s fields: the profile, the document's type and version, and the XML (a
        /// client's base64, or a stored one's hash and size).
        func facturX() throws(OperationError) -> FacturX {
            func one<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ field: String, default value: T?) throws(OperationError) -> T
            where T.RawValue == String {
                let all = T.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                guard let text = try optional(String.self, field) else {
                    if let value { return value }
                    throw invalid(field, "is required (one of \(all))")
                }
                guard let parsed = T(rawValue: text) else { throw invalid(field, "'\(text)' is not one of \(all)") }
                return parsed
            }
            let level = try one(FacturX.ConformanceLevel.self, "conformance_level", default: nil)
            let type = try one(FacturX.DocumentType.self, "document_type", default: .invoice)
            let version = try optional(String.self, "version") ?? "1.0"
            if let problem = FacturX.versionProblem(version) { throw invalid("version", problem) }
            if let text = try optional(String.self, "xml") {
                guard let data = Data(base64Encoded: text), !data.isEmpty else {
                    throw invalid("xml", "must be the invoice's XML in base64, padded, without line breaks")
                }
                do {
                    return try FacturX(conformanceLevel: level, documentType: type, version: version, xml: data, field: location("xml"))
                }
            }
            guard let sha256 = try optional(String.self, "xml_sha256") else {
                throw invalid("xml", "is required (the invoice's CII XML in base64)")
            }
            let stored = PDFAttachment(name: FacturX.fileName, sha256: sha256, bytes: try optional(Int.self, "xml_bytes") ?? 0)
            return FacturX(conformanceLevel: level, documentType: type, version: version, stored: stored)
        }

        /// `pdfua`'s `part`: 1b, 2b or 3b, in either case (as `pdfa`'s); nil when it is left out.
        func pdfaPart() throws(OperationError) -> PDFAPart? {
            guard let part = try optional(String.self, "part") else { return nil }
            guard let parsed = PDFAPart(rawValue: part.lowercased()) else {
                throw invalid("part", "'\(part)' is not one of \(PDFAPart.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return parsed
        }

        func date(_ field: String) throws(OperationError) -> Date? {
            guard let text = try optional(String.self, field) else { return nil }
            // The shape first, as openapi.yaml's pattern states it: Foundation's parser takes
            // more (trailing text, five-digit years) than the API promises.
            if text.wholeMatch(of: Self.isoDate) != nil {
                if let date = try? Date(text, strategy: .iso8601) { return date }
                if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return day }
            }
            throw invalid(field, "'\(text)' is not a date; use ISO 8601, e.g. 2026-11-24 or 2026-11-24T10:15:00Z")
        }

        static func kind(of type: Any.Type) -> String {
            switch type {
            case is Int.Type: "a whole number"
            case is Double.Type: "a number"
            case is Bool.Type: "true or false"
            case is [String].Type: "a list of strings"
            case is [PDFBookmark].Type: "a list of {title, page, children?} objects (page 1 is the first)"
            case is [String: MetadataTag].Type: "an object of tag names to a text, a list of texts, true/false or a number"
            case is [PDFAttachment].Type: "a list of {name, data} objects (data: the file in base64)"
            default: "a string"
            }
        }
    }
}
