import Crypto
import Foundation

/// Carries out `PDFOperation`s: the port the engine runs them through, after a conversion or on
/// library documents. `GatewayPDFTools.LocalPDFOperator` implements it with qpdf and
/// Ghostscript, sealed like the converters.
public protocol PDFOperator: Sendable {
    /// Writes `inputs`, in order, as one unencrypted PDF at `output` (a single input is copied
    /// through qpdf, which also decrypts it and repairs what it can). `work` is scratch space.
    func combine(_ inputs: [PDFInput], into output: String, work: String, deadline: ContinuousClock.Instant) async throws

    /// Applies `operations` in order to the PDF at `input`, writing what they produce into
    /// `work`; answers the resulting files in order (several after a split). Encryption takes its
    /// passwords from `secrets`.
    func apply(
        _ operations: [PDFOperation],
        to input: String,
        secrets: JobSecrets,
        work: String,
        deadline: ContinuousClock.Instant
    ) async throws -> [String]

    /// Whether `password` opens the encrypted PDF at `path` (checked at create, so a wrong one is
    /// refused before anything runs). `work` is a fresh path for scratch space, removed after;
    /// on the store's file system the PDF is linked in, not copied.
    func opens(_ path: String, password: String, work: String, deadline: ContinuousClock.Instant) async throws -> Bool

    /// The outline of the PDF at `path`, pages counted from 1 (Gotenberg's `bookmarks/read`).
    /// `work` is a fresh path for scratch space, removed after.
    func bookmarks(of path: String, work: String, deadline: ContinuousClock.Instant) async throws -> [PDFBookmark]

    /// The PDF's metadata as ExifTool reads it (Gotenberg's `metadata/read`): one JSON object,
    /// without the tags that describe the file on disk rather than the document.
    func metadata(of path: String, work: String, deadline: ContinuousClock.Instant) async throws -> Data

    /// Why it cannot run here (a tool missing), or nil.
    func problem() async -> String?

    /// The languages `ocr` can read on this node (Tesseract's installed data), or nil when that
    /// is not known here; the intake refuses a job asking for another at once.
    func ocrLanguages() async -> Set<String>?
}

extension PDFOperator {
    /// Unknown: the job finds out when it runs.
    public func ocrLanguages() async -> Set<String>? { nil }
}

/// One PDF going into an operation job.
public struct PDFInput: Sendable, Equatable {
    public var path: String
    /// Opens it when it is encrypted.
    public var password: String?
    /// How messages name it: the document's name or the uploaded file's.
    public var label: String
    /// A library document the inspector read when it was filed, not encrypted: usable as it
    /// is, where an upload goes through qpdf first (decrypted, repaired).
    public var isReadable: Bool

    public init(path: String, password: String?, label: String, isReadable: Bool = false) {
        self.path = path
        self.password = password
        self.label = label
        self.isReadable = isReadable
    }
}

/// What a job must know but never store or show: the passwords that open its inputs and the
/// ones its `encrypt` sets — and, too big for the job's row and every answer, its watermarks'
/// images. They wait beside the job's staged input (`InputStaging`) and go when the job ends;
/// the job's row, its answers and the logs never hold them.
public struct JobSecrets: Sendable, Equatable, Codable {
    /// Opens every encrypted input that has no password of its own.
    public var password: String?
    /// Per library document, by lowercased id.
    public var passwords: [String: String]
    /// `encrypt`'s passwords.
    public var userPassword: String?
    public var ownerPassword: String?
    /// Files the request carried for its operations, by their SHA-256: watermark PNGs
    /// (`PDFOperation.StampImage`) and attachments (`PDFOperation.Attachment`).
    public var carriedFiles: [String: Data]

    public init(
        password: String? = nil,
        passwords: [String: String] = [:],
        userPassword: String? = nil,
        ownerPassword: String? = nil,
        carriedFiles: [String: Data] = [:]
    ) {
        self.password = password
        self.passwords = passwords
        self.userPassword = userPassword
        self.ownerPassword = ownerPassword
        self.carriedFiles = carriedFiles
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        passwords = try container.decodeIfPresent([String: String].self, forKey: .passwords) ?? [:]
        userPassword = try container.decodeIfPresent(String.self, forKey: .userPassword)
        ownerPassword = try container.decodeIfPresent(String.self, forKey: .ownerPassword)
        carriedFiles = try container.decodeIfPresent([String: Data].self, forKey: .carriedFiles) ?? [:]
    }

    /// Hex SHA-256, the name a stamp image goes by.
    public static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    public var isEmpty: Bool { self == JobSecrets() }

    /// The password for input `key` (a document id, or nil for an upload).
    public func password(for key: String?) -> String? {
        key.flatMap { passwords[$0] } ?? password
    }

    enum CodingKeys: String, CodingKey {
        case password, passwords
        case userPassword = "user_password"
        case ownerPassword = "owner_password"
        // Named when it held only stamps; kept so stored secrets still read.
        case carriedFiles = "stamp_images"
    }
}
