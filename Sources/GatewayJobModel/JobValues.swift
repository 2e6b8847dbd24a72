import Foundation
import GatewayCore

/// What a job converts (DESIGN §2).
public enum JobType: String, Sendable, Codable, CaseIterable {
    case urlToPDF = "URL_TO_PDF"
    case docToPDF = "DOC_TO_PDF"
    case ebookToPDF = "EBOOK_TO_PDF"
    /// PDFs in, PDFs out: library documents (merged when several) or an uploaded PDF, through
    /// the job's `operations`.
    case pdfToPDF = "PDF_TO_PDF"
    /// A web page or uploaded HTML as an image (Gotenberg's screenshot routes): its result is
    /// kept beside the job for its requester, not filed (`DocumentFiler.keepResult`).
    case screenshot = "SCREENSHOT"
    /// Photos or scans of pages (JPEG, PNG, TIFF, WebP, HEIC), in order, as one PDF: each image
    /// a page, a JPEG embedded as it is (`ScanOptions`).
    case scanToPDF = "SCAN_TO_PDF"

    /// The type the mobile client picks for a file name: epub/mobi/azw/azw3 (and the other
    /// formats Calibre reads) are ebooks, photos of pages are scans, everything else is an office
    /// document.
    public static func forFilename(_ name: String) -> JobType {
        let ext = (name as NSString).pathExtension.lowercased()
        if ext == "pdf" { return .pdfToPDF }
        if SourceFormats.image.contains(ext) { return .scanToPDF }
        return SourceFormats.ebook.contains(ext) ? .ebookToPDF : .docToPDF
    }
}

/// Where a job is in its life. `phase` refines `processing`.
public enum JobStatus: String, Sendable, Codable, CaseIterable {
    case created = "CREATED"
    case queued = "QUEUED"
    case processing = "PROCESSING"
    case succeeded = "SUCCEEDED"
    case failed = "FAILED"
    case cancelled = "CANCELLED"

    public var isTerminal: Bool { self == .succeeded || self == .failed || self == .cancelled }
}

/// The step a `processing` job is on.
public enum JobPhase: String, Sendable, Codable, CaseIterable {
    case uploading, converting, polling, downloading
    /// Running the job's PDF operations (merge, split, PDF/A, …).
    case transforming
    case inspecting, filing
}

/// How a converter failed, which decides what the job does next (DESIGN §4): the state machine
/// reads only this, never the code.
public enum FailureClass: String, Sendable, Codable {
    /// Worth another attempt: a crashed converter, a dropped connection, a 5xx but 501 and 503.
    case transient
    /// The converter is down, full or shutting down, so it has not tried the input: the job
    /// waits for it until its deadline without spending attempts ("wait and retry, not fail").
    case unavailable
    /// The input is bad: fail at once with the converter's message.
    case rejected
    /// The converter cannot start on this node: its sandbox is refused, its program or a library
    /// it loads is missing. No retry here can heal that, so the job fails at once, and the engine
    /// takes no more jobs of its type on this node until a re-check passes.
    case cannotStart = "cannot_start"
    /// The deadline passed.
    case timedOut = "timed_out"

    /// Whether the same input may succeed later.
    public var isRetryable: Bool { self == .transient || self == .unavailable }
}

/// A classified failure with the words a user will read.
public struct JobFailure: GatewayError, Equatable, Codable {
    public var kind: FailureClass
    /// Stable code, e.g. `conversion_rejected`, `converter_unavailable`, `timed_out`.
    public var code: String
    public var message: String
    /// The converter's `Retry-After`, when it sent one.
    public var retryAfter: Duration?
    /// What the tool itself said, bare (`404: Not Found`, `resource Image: net::ERR_FAILED`):
    /// Gotenberg's routes set it in Gotenberg's words, which clients and log alarms match on.
    public var detail: String?

    public init(_ kind: FailureClass, code: String, _ message: String, retryAfter: Duration? = nil, detail: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.detail = detail
    }

    /// The converter cannot take work: not started, not installed, shutting down, 503.
    public static func converterUnavailable(_ message: String, retryAfter: Duration? = nil) -> JobFailure {
        JobFailure(.unavailable, code: "converter_unavailable", message, retryAfter: retryAfter)
    }

    /// The converter cannot start on this node (see `FailureClass.cannotStart`); `message` names
    /// the cause and its fix.
    public static func converterCannotStart(_ message: String) -> JobFailure {
        JobFailure(.cannotStart, code: cannotStartCode, message)
    }

    /// The stable code of every `.cannotStart` failure.
    public static let cannotStartCode = "converter_cannot_start"

    /// The converter is full (429): it asks us to come back later.
    public static func converterBusy(_ message: String, retryAfter: Duration? = nil) -> JobFailure {
        JobFailure(.unavailable, code: "converter_busy", message, retryAfter: retryAfter)
    }

    /// The converter's address refused or did not answer the connection.
    public static func converterUnreachable(_ message: String) -> JobFailure {
        JobFailure(.unavailable, code: "converter_unreachable", message)
    }
}
