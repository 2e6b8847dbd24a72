import Foundation

/// Knobs a client may set on a conversion; each backend maps what it supports and ignores
/// the rest (a paper size means nothing to an already-paginated spreadsheet).
///
/// On the wire (the `options` object of a create, and the spec stored with the job) all keys
/// sit flat, `browser`'s and `office`'s included. Clients' objects are read strictly, stored ones leniently:
/// see `ConversionOptions.strictDecoding`.
public struct ConversionOptions: Sendable, Equatable {
    /// Paper size in inches, e.g. 8.27 × 11.69 for A4. Nil: the backend's default.
    public var paperWidth: Double?
    public var paperHeight: Double?
    public var landscape: Bool?
    /// Margins in inches, all four sides.
    public var margin: Double?
    /// One side's margin in inches, in place of `margin` on that side (Gotenberg's `marginTop`…).
    public var marginTop: Double?
    public var marginBottom: Double?
    public var marginLeft: Double?
    public var marginRight: Double?
    /// Print CSS backgrounds (Chromium).
    public var printBackground: Bool?
    /// Gotenberg 8's Chromium options: waits, headers and cookies, print settings, fail-on rules.
    public var browser: BrowserOptions
    /// Gotenberg 8's LibreOffice options: what goes into the PDF, image compression, PDF/A and UA.
    public var office: OfficeOptions
    /// How a scan makes its pages: deskew, auto-rotate, OCR.
    public var scan: ScanOptions

    public init(
        paperWidth: Double? = nil,
        paperHeight: Double? = nil,
        landscape: Bool? = nil,
        margin: Double? = nil,
        printBackground: Bool? = nil,
        browser: BrowserOptions = BrowserOptions(),
        office: OfficeOptions = OfficeOptions(),
        scan: ScanOptions = ScanOptions()
    ) {
        self.paperWidth = paperWidth
        self.paperHeight = paperHeight
        self.landscape = landscape
        self.margin = margin
        self.printBackground = printBackground
        self.browser = browser
        self.office = office
        self.scan = scan
    }

    /// Each side's margin in inches: its own, else `margin`.
    public struct Margins: Sendable, Equatable {
        public var top: Double
        public var bottom: Double
        public var left: Double
        public var right: Double
    }

    /// The margins the client set, a side left out taking `margin`, else `fallback` (the
    /// converter's default); nil when none was set, so the converter keeps its own.
    public func margins(fallback: Double) -> Margins? {
        let sides = [marginTop, marginBottom, marginLeft, marginRight]
        guard margin != nil || sides.contains(where: { $0 != nil }) else { return nil }
        let side = { (value: Double?) in value ?? margin ?? fallback }
        return Margins(top: side(marginTop), bottom: side(marginBottom), left: side(marginLeft), right: side(marginRight))
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case paperWidth = "paper_width"
        case paperHeight = "paper_height"
        case landscape, margin
        case marginTop = "margin_top"
        case marginBottom = "margin_bottom"
        case marginLeft = "margin_left"
        case marginRight = "margin_right"
        case printBackground = "print_background"
    }
}

/// What a converter is asked to turn into a PDF.
public enum ConversionSource: Sendable, Equatable {
    /// A staged upload; `originalFilename` carries the extension that picks the importer.
    case file(path: String, originalFilename: String)
    /// A web page, already checked against the SSRF rules.
    case url(String)
    /// PDFs to combine, in order (a `PDF_TO_PDF` job's library documents).
    case pdfs([PDFInput])
    /// Page images, in order (a `SCAN_TO_PDF` job of several): each staged upload with the name
    /// it came with. A scan of one image is a `.file`.
    case images([StagedFile])
}

/// An uploaded file where staging keeps it, with the name it came with.
public struct StagedFile: Sendable, Equatable {
    public var path: String
    public var originalFilename: String

    public init(path: String, originalFilename: String) {
        self.path = path
        self.originalFilename = originalFilename
    }
}

/// One conversion attempt.
public struct ConversionRequest: Sendable {
    public var jobID: UUID
    public var type: JobType
    public var source: ConversionSource
    public var options: ConversionOptions
    /// A private, empty directory for this attempt's scratch files.
    public var workDirectory: String
    /// Where the PDF (for a screenshot, the image) must be when `convert` returns.
    public var outputPath: String
    /// The job's deadline: the converter stops (and kills what it started) by then.
    public var deadline: ContinuousClock.Instant
    /// Set when an earlier attempt created a remote job that is still running: poll it instead
    /// of uploading again.
    public var remoteID: String?
    /// Passwords for encrypted inputs; never stored with the job.
    public var secrets: JobSecrets
    /// Set for a `SCREENSHOT`: the page is captured as this image instead of printed.
    public var screenshot: ScreenshotOptions?
    /// The job runs as Gotenberg runs (`JobSpec.gotenbergSemantics`).
    public var gotenbergSemantics = false

    public init(
        jobID: UUID,
        type: JobType,
        source: ConversionSource,
        options: ConversionOptions = ConversionOptions(),
        workDirectory: String,
        outputPath: String,
        deadline: ContinuousClock.Instant,
        remoteID: String? = nil,
        secrets: JobSecrets = JobSecrets(),
        screenshot: ScreenshotOptions? = nil
    ) {
        self.jobID = jobID
        self.type = type
        self.source = source
        self.options = options
        self.workDirectory = workDirectory
        self.outputPath = outputPath
        self.deadline = deadline
        self.remoteID = remoteID
        self.secrets = secrets
        self.screenshot = screenshot
    }
}

/// Progress a converter reports while it works.
public enum ConversionEvent: Sendable, Equatable {
    case entered(JobPhase)
    /// A remote backend created its job: the engine stores the id before polling.
    case remoteJobCreated(String)
    /// What the result does not show of the original, each a sentence (a font that is not
    /// installed here, and what drew it instead): kept on the job, answered with it.
    case warned([String])
}

/// A backend that turns a `ConversionRequest` into a PDF at `outputPath` (DESIGN §4).
///
/// Every failure is thrown as a `JobFailure` classified transient / rejected / timed out;
/// anything else a converter lets escape is treated as transient.
public protocol Converter: Sendable {
    /// For logs and metrics, e.g. `local.libreoffice`, `gotenberg`.
    var name: String { get }
    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws
    /// Cheap check that the backend can take work now (for `/readyz`).
    func isReady() async -> Bool
    /// Checked afresh: why this backend cannot start for jobs of `type` on this node (its
    /// sandbox, a missing tool), as a `.cannotStart` failure; nil when it starts. The engine asks
    /// after such a failure, to know when to take that type's jobs again.
    func startProblem(for type: JobType) async -> JobFailure?
    /// Cancels, best effort, a job this backend created remotely. The engine calls it when a
    /// client cancels or the deadline passes — not on shutdown, so a restart can resume polling.
    func cancelRemoteJob(_ remoteID: String) async
}

extension Converter {
    /// Backends that create no remote jobs have nothing to cancel.
    public func cancelRemoteJob(_ remoteID: String) async {}

    /// Remote backends never fail to start: a peer that is down is `.unavailable`, and heals.
    public func startProblem(for type: JobType) async -> JobFailure? { nil }
}
