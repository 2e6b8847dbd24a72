import Foundation

/// One step applied to a PDF after its conversion, or to library documents: each is carried out
/// by a well-kept tool (qpdf for structure, Ghostscript for PDF/A and images), never by our own
/// PDF code. A job's `operations` run in order; several inputs are merged first.
///
/// On the wire each is an object named by `op`, with snake_case fields; an unknown operation or
/// field is refused, naming what is allowed.
public enum PDFOperation: Sendable, Equatable {
    /// Several documents: `every` N pages, or one document per range. Named `Name 01`, `Name 02` ….
    case split(Split)
    /// Turns `pages` (all when nil) clockwise by `angle`, a multiple of 90.
    case rotate(angle: Int, pages: PageSelection?)
    /// Archival PDF/A of the given part and conformance (Ghostscript), with the XMP that says so.
    case pdfa(PDFAPart)
    /// The document information the library shows; nil fields keep what is there.
    case metadata(MetadataUpdate)
    /// Form fields and annotations become part of the page.
    case flatten
    /// AES-256 with a user and/or owner password and what a reader may do.
    case encrypt(Encryption)
    /// Text, a PNG or a PDF's page laid over (or under) chosen pages, turned and see-through.
    case watermark(Watermark)
    /// Recompressed images, unused objects dropped, linearized for the web; the smaller of that
    /// and the input is kept, so it never grows a file.
    case optimize(Optimize)
    /// Replaces the outline (bookmarks) with these entries; an empty list removes it.
    case bookmarks([PDFBookmark])
    /// Files attached to the PDF, each under its name (a file of that name is replaced).
    case attach([PDFAttachment])
    /// A Factur-X invoice: its XML attached as `factur-x.xml` and declared in the XMP; after a
    /// `pdfa` to PDF/A-3b, which the standard builds on.
    case facturX(FacturX)
    /// An invisible text layer from Tesseract under the pages that have no text, so a scan can be
    /// searched and copied from; the page images stay byte for byte.
    case ocr(OCR)
    /// Tagged, accessible PDF/UA-1 (LibreOffice Draw imports the PDF and exports it again, as
    /// Gotenberg does), and PDF/A of `part` too when one is given, in the same export.
    case pdfua(PDFAPart?)

    /// The operation with its page selections clipped to the document instead of refused past
    /// its end: how Gotenberg's routes run (`JobSpec.gotenbergSemantics`).
    public var clippingPagesPastTheEnd: PDFOperation {
        switch self {
        case .split(.ranges(let selections)): .split(.ranges(selections.map(\.clipping)))
        case .split(.pages(let selection)): .split(.pages(selection.clipping))
        case .rotate(let angle, let pages): .rotate(angle: angle, pages: pages?.clipping)
        default: self
        }
    }

    public enum Split: Sendable, Equatable {
        case every(Int)
        case ranges([PageSelection])
        /// One document per page of the selection (Gotenberg's `pages` split mode).
        case pages(PageSelection)
    }

    public enum PDFAPart: String, Sendable, Equatable, CaseIterable {
        case a1b = "1b"
        case a2b = "2b"
        case a3b = "3b"
        /// Ghostscript's `-dPDFA=` value.
        public var part: Int { Int(String(rawValue.prefix(1)))! }
    }

    public struct MetadataUpdate: Sendable, Equatable {
        public var title: String?
        public var author: String?
        public var subject: String?
        public var keywords: String?
        public var creator: String?
        public var creationDate: Date?
        public var modificationDate: Date?
        /// Any other tag, by ExifTool's name (`MetadataTag`), written after the rest.
        public var tags: [String: MetadataTag]

        public init(
            title: String? = nil,
            author: String? = nil,
            subject: String? = nil,
            keywords: String? = nil,
            creator: String? = nil,
            creationDate: Date? = nil,
            modificationDate: Date? = nil,
            tags: [String: MetadataTag] = [:]
        ) {
            self.title = title
            self.author = author
            self.subject = subject
            self.keywords = keywords
            self.creator = creator
            self.creationDate = creationDate
            self.modificationDate = modificationDate
            self.tags = tags
        }

        /// At most this many tags in one update.
        public static let maxTags = 64
    }

    public struct Encryption: Sendable, Equatable {
        /// What a reader without the owner password may still do (qpdf's 256-bit flags).
        public enum Permission: String, Sendable, CaseIterable {
            case print, copy, modify, annotate
            case fillForms = "fill_forms"
            case assemble
            case accessibility
        }

        /// Never written anywhere: a job's stored spec and its answers leave passwords out
        /// (`JobSecrets` carries them beside the job's input until it ends).
        public var userPassword: String?
        public var ownerPassword: String?
        public var allow: Set<Permission>

        public init(userPassword: String?, ownerPassword: String?, allow: Set<Permission> = Set(Permission.allCases)) {
            self.userPassword = userPassword
            self.ownerPassword = ownerPassword
            self.allow = allow
        }
    }

    /// Text, a PNG image or a PDF's pages across the chosen pages.
    public struct Watermark: Sendable, Equatable {
        /// What is drawn: one of `text` and `image` (a PNG or a PDF).
        public var text: String?
        public var image: StampImage?
        /// All pages when nil.
        public var pages: PageSelection?
        /// 0…1.
        public var opacity: Double
        /// Points, on a page the size of the document's first.
        public var fontSize: Double
        /// Degrees, counter-clockwise; `diagonal` instead when set.
        public var angle: Double
        /// A share of the page, or of the mark's own size, as `sizing` says.
        public var scale: Double
        public var layer: Layer = .over
        public var position: Position = .center
        /// Points the mark moves right and up from its `position`.
        public var offsetX: Double = 0
        public var offsetY: Double = 0
        public var sizing: Sizing = .fit
        public var diagonal: Diagonal?
        /// Text's colours and how its glyphs are painted; our grey and DejaVu Sans Bold when nil.
        public var color: Color?
        public var strokeColor: Color?
        public var renderMode: RenderMode = .fill
        public var font: Font?

        public init(
            text: String? = nil,
            image: StampImage? = nil,
            pages: PageSelection? = nil,
            opacity: Double = 0.25,
            fontSize: Double = 72,
            angle: Double = 45,
            scale: Double = 0.5
        ) {
            self.text = text
            self.image = image
            self.pages = pages
            self.opacity = opacity
            self.fontSize = fontSize
            self.angle = angle
            self.scale = scale
        }

        /// What pdfcpu draws when Gotenberg's options say nothing: fully opaque, along the
        /// diagonal, half the page, centred, text in grey Helvetica at 24 points; under the
        /// content for a watermark, over it for a stamp.
        public static func pdfcpu(layer: Layer, text: String?, image: StampImage?) -> Watermark {
            var mark = Watermark(text: text, image: image, opacity: 1, fontSize: 24, angle: 0, scale: 0.5)
            mark.layer = layer
            mark.sizing = .relative
            mark.diagonal = .up
            if text != nil {
                mark.color = .pdfcpuGray
                mark.strokeColor = .pdfcpuGray
                mark.font = .helvetica
            }
            return mark
        }
    }

    /// A watermark's PNG or PDF. The bytes come with the client's request only: the intake moves
    /// them beside the job's staged input (`JobSecrets.carriedFiles`), so the job's row and
    /// answers carry just its SHA-256, size and format.
    public struct StampImage: Sendable, Equatable {
        public enum Format: String, Sendable, CaseIterable {
            case png, pdf
        }

        public var sha256: String
        public var bytes: Int
        public var format: Format
        public var data: Data?

        public init(sha256: String, bytes: Int, format: Format = .png, data: Data? = nil) {
            self.sha256 = sha256
            self.bytes = bytes
            self.format = format
            self.data = data
        }

        /// Largest PNG a watermark takes.
        public static let maxBytes = 2 << 20
        /// Largest PDF a watermark takes: a letterhead or a form's page, not a book.
        public static let maxPDFBytes = 8 << 20
        static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

        /// `data` as a watermark's image, or why it cannot be one (said of `field`).
        public static func png(_ data: Data, field: String) throws(OperationError) -> StampImage {
            func refuse(_ problem: String) -> OperationError { OperationError(.invalid, code: "invalid_operation", "\(field) \(problem)") }
            guard !data.isEmpty else { throw refuse("is empty; give a PNG") }
            guard data.count <= maxBytes else { throw refuse("is \(data.count) bytes; a watermark's PNG may have at most \(maxBytes) bytes") }
            guard data.starts(with: pngSignature) else {
                throw refuse("is not a PNG (it does not start with PNG's signature); convert the picture to PNG first")
            }
            return StampImage(sha256: JobSecrets.sha256(data), bytes: data.count, data: data)
        }

        /// `data` as a watermark's PDF (its pages laid on the document's), or why it cannot be one.
        public static func pdf(_ data: Data, field: String) throws(OperationError) -> StampImage {
            func refuse(_ problem: String) -> OperationError { OperationError(.invalid, code: "invalid_operation", "\(field) \(problem)") }
            guard !data.isEmpty else { throw refuse("is empty; give a PDF") }
            guard data.count <= maxPDFBytes else { throw refuse("is \(data.count) bytes; a watermark's PDF may have at most \(maxPDFBytes) bytes") }
            // PDF allows bytes before its header; readers look in the first kilobyte.
            guard data.prefix(1024).range(of: Data("%PDF-".utf8)) != nil else { throw refuse("is not a PDF (it has no %PDF- header)") }
            return StampImage(sha256: JobSecrets.sha256(data), bytes: data.count, format: .pdf, data: data)
        }

        /// A PNG or a PDF, told apart by their signatures.
        public static func file(_ data: Data, field: String) throws(OperationError) -> StampImage {
            if data.starts(with: pngSignature) { return try png(data, field: field) }
            guard data.prefix(1024).range(of: Data("%PDF-".utf8)) != nil else {
                throw OperationError(
                    .invalid,
                    code: "invalid_operation",
                    "\(field) is not a PNG (it does not start with PNG's signature) nor a PDF; convert the picture to PNG first"
                )
            }
            return try pdf(data, field: field)
        }
    }

    public struct Optimize: Sendable, Equatable {
        /// Ghostscript's image presets, by what the file is for.
        public enum Images: String, Sendable, CaseIterable {
            /// Images as they are; only structure is compacted.
            case keep
            case screen, ebook, printer
        }

        public var images: Images
        public var linearize: Bool

        public init(images: Images = .ebook, linearize: Bool = true) {
            self.images = images
            self.linearize = linearize
        }
    }

    /// The name on the wire.
    public var name: String {
        switch self {
        case .split: "split"
        case .rotate: "rotate"
        case .pdfa: "pdfa"
        case .metadata: "metadata"
        case .flatten: "flatten"
        case .encrypt: "encrypt"
        case .watermark: "watermark"
        case .optimize: "optimize"
        case .bookmarks: "bookmarks"
        case .attach: "attach"
        case .facturX: "facturx"
        case .ocr: "ocr"
        case .pdfua: "pdfua"
        }
    }

    public static let names = [
        "split", "rotate", "pdfa", "metadata", "flatten", "encrypt", "watermark", "optimize", "bookmarks", "attach", "facturx", "ocr", "pdfua",
    ]
}

extension [PDFOperation] {
    /// The operations before a final `encrypt`, and that `encrypt`: an encrypted PDF is inspected
    /// before it is locked (Poppler cannot open it without a password that works).
    public var splittingOffEncryption: (before: [PDFOperation], encrypt: PDFOperation?) {
        guard let last, case .encrypt = last else { return (self, nil) }
        return (Array(dropLast()), last)
    }

    /// The order rules: at most one split; `encrypt` comes last (nothing after it could read the
    /// file); PDF/A cannot be encrypted (the standard forbids it) and comes after every other
    /// change.
    public func checkOrder(field: String = "operations") throws(OperationError) {
        if filter({ $0.name == "split" }).count > 1 {
            throw OperationError(.outOfRange, code: "contradictory_operations", "\(field) splits twice; split once, into ranges or every N pages")
        }
        if let index = firstIndex(where: { $0.name == "encrypt" }) {
            guard index == count - 1 else {
                throw OperationError(
                    .outOfRange,
                    code: "contradictory_operations",
                    "\(field): encrypt must be the last operation (it is #\(index + 1) of \(count)); nothing after it could read the file"
                )
            }
            if contains(where: { $0.name == "pdfa" }) {
                throw OperationError(.outOfRange, code: "contradictory_operations", "\(field): PDF/A forbids encryption; drop pdfa or encrypt")
            }
        }
        try checkPDFUAOrder(field: field)
        // PDF/A-3 alone allows attached files; Ghostscript's rewrite would drop them, so they come after it.
        let part = declaredPDFAPart
        if let part, part != .a3b, contains(where: { $0.name == "attach" || $0.name == "facturx" }) {
            throw OperationError(
                .outOfRange,
                code: "contradictory_operations",
                "\(field): PDF/A-\(part.rawValue) does not allow attached files; only PDF/A-3b does"
            )
        }
        let afterPDFA: Set = ["split", "attach", "facturx"]
        // Anything rewriting the file after PDF/A (Ghostscript, new metadata) would break what it declares.
        if let index = firstIndex(where: { $0.name == "pdfa" }), self[(index + 1)...].contains(where: { !afterPDFA.contains($0.name) }) {
            throw OperationError(
                .outOfRange,
                code: "contradictory_operations",
                "\(field): pdfa must come last (or only be followed by split, attach and facturx): later operations would break its conformance"
            )
        }
        for name in ["attach", "facturx"] {
            if let index = firstIndex(where: { $0.name == name }), let pdfa = firstIndex(where: { $0.name == "pdfa" }), index < pdfa {
                throw OperationError(
                    .outOfRange,
                    code: "contradictory_operations",
                    "\(field): \(name) must come after pdfa, whose rewrite of the file would drop the attached files"
                )
            }
        }
        // A second pass would find every page it OCRed already has text: it could only mean `force`.
        if filter({ $0.name == "ocr" }).count > 1 {
            throw OperationError(.outOfRange, code: "contradictory_operations", "\(field): ocr twice; OCR once, with every language in \"languages\"")
        }
        // Factur-X is PDF/A-3 by definition: without it, the invoice would not validate.
        if let index = firstIndex(where: { $0.name == "facturx" }) {
            guard part == .a3b else {
                throw OperationError(
                    .outOfRange,
                    code: "contradictory_operations",
                    "\(field): facturx makes a PDF/A-3 invoice; put {\"op\": \"pdfa\", \"part\": \"3b\"} before it (operation #\(index + 1))"
                )
            }
            if filter({ $0.name == "facturx" }).count > 1 {
                throw OperationError(.outOfRange, code: "contradictory_operations", "\(field): facturx twice; a document carries one invoice")
            }
        }
    }

    /// Checks every page selection against a document of `pageCount` pages (the merged input's).
    public func checkPages(pageCount: Int, field: String = "operations") throws(OperationError) {
        var pages = pageCount
        for (index, operation) in enumerated() {
            let at = "\(field)[\(index)]"
            switch operation {
            case .rotate(_, let selection?): _ = try selection.pages(of: pages, field: at + ".pages")
            case .watermark(let mark): if let selection = mark.pages { _ = try selection.pages(of: pages, field: at + ".pages") }
            case .split(.ranges(let ranges)):
                for (number, range) in ranges.enumerated() { _ = try range.pages(of: pages, field: at + ".ranges[\(number)]") }
                pages = ranges.map { (try? $0.pages(of: pages).count) ?? 0 }.max() ?? pages
            case .bookmarks(let items): try PDFBookmark.checkPages(items, pageCount: pages, field: at + ".items")
            case .split(.every(let size)): pages = Swift.min(size, pages)
            case .split(.pages(let selection)):
                _ = try selection.pages(of: pages, field: at + ".pages")
                pages = 1
            default: break
            }
        }
    }
}
