import Foundation

/// What Poppler reads from a PDF: structure, Info dictionary and XMP facts.
public struct PDFInfo: Sendable, Equatable, Codable {
    public var pageCount: Int
    public var title: String?
    public var author: String?
    public var subject: String?
    public var keywords: String?
    public var creator: String?
    public var producer: String?
    public var createdAt: Date?
    public var modifiedAt: Date?
    /// As written in the header or catalog, e.g. `1.7`.
    public var pdfVersion: String
    /// First page size in PDF points (1/72 inch), after its /Rotate.
    public var pageWidth: Double
    public var pageHeight: Double
    public var encrypted: Bool
    public var linearized: Bool
    /// PDF/A part and conformance declared in the XMP packet, e.g. `2B`; nil when not declared.
    public var pdfa: String?
    /// What could not be read, for a PDF kept as it came although Poppler cannot open it (one
    /// encrypted with a password we do not have, one damaged); nil for a PDF read whole. Its
    /// `pageCount` is then 0 when even that could not be read.
    public var warning: String?

    /// The page count as answers show it: nil for a PDF kept unread whose count is unknown.
    public var knownPageCount: Int? { pageCount == 0 && warning != nil ? nil : pageCount }

    public init(
        pageCount: Int,
        title: String? = nil,
        author: String? = nil,
        subject: String? = nil,
        keywords: String? = nil,
        creator: String? = nil,
        producer: String? = nil,
        createdAt: Date? = nil,
        modifiedAt: Date? = nil,
        pdfVersion: String,
        pageWidth: Double,
        pageHeight: Double,
        encrypted: Bool = false,
        linearized: Bool = false,
        pdfa: String? = nil,
        warning: String? = nil
    ) {
        self.pageCount = pageCount
        self.title = title
        self.author = author
        self.subject = subject
        self.keywords = keywords
        self.creator = creator
        self.producer = producer
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.pdfVersion = pdfVersion
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        self.encrypted = encrypted
        self.linearized = linearized
        self.pdfa = pdfa
        self.warning = warning
    }

    enum CodingKeys: String, CodingKey {
        case pageCount = "page_count"
        case title, author, subject, keywords, creator, producer
        case createdAt = "created_at"
        case modifiedAt = "modified_at"
        case pdfVersion = "pdf_version"
        case pageWidth = "page_width"
        case pageHeight = "page_height"
        case encrypted, linearized, pdfa, warning
    }

    /// Encodes every key, with explicit nulls, so scripts can rely on each being present.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(knownPageCount, forKey: .pageCount)
        try c.encode(title, forKey: .title)
        try c.encode(author, forKey: .author)
        try c.encode(subject, forKey: .subject)
        try c.encode(keywords, forKey: .keywords)
        try c.encode(creator, forKey: .creator)
        try c.encode(producer, forKey: .producer)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(modifiedAt, forKey: .modifiedAt)
        try c.encode(pdfVersion, forKey: .pdfVersion)
        try c.encode(pageWidth, forKey: .pageWidth)
        try c.encode(pageHeight, forKey: .pageHeight)
        try c.encode(encrypted, forKey: .encrypted)
        try c.encode(linearized, forKey: .linearized)
        try c.encode(pdfa, forKey: .pdfa)
        try c.encode(warning, forKey: .warning)
    }
}
