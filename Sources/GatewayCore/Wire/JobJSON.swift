import Foundation

/// A job as the API answers it and `pdfgate jobs --json` prints it: the mobile client's keys
/// (`job_id`, `status`, `upload`, `download_url`, `error_message`) plus the additive ones of
/// DESIGN §3.1. The server adds the signed URLs and the document; the CLI has none to sign.
public struct JobJSON: Encodable, Sendable {
    public struct Upload: Encodable, Sendable {
        public var method: String
        public var url: String
        public var expiresAt: Date
        public var maxBytes: Int64

        public init(method: String, url: String, expiresAt: Date, maxBytes: Int64) {
            self.method = method
            self.url = url
            self.expiresAt = expiresAt
            self.maxBytes = maxBytes
        }

        enum CodingKeys: String, CodingKey {
            case method, url
            case expiresAt = "expires_at"
            case maxBytes = "max_bytes"
        }
    }

    public var jobID: String
    public var type: JobType
    public var status: JobStatus
    public var phase: JobPhase?
    public var createdAt: Date
    public var updatedAt: Date
    public var attempts: Int
    public var url: String?
    public var originalFilename: String?
    public var folder: String?
    public var name: String?
    /// The conversion options the job was created with; absent when it set none.
    public var options: ConversionOptions?
    public var upload: Upload?
    public var downloadURL: String?
    /// The filed document's id, on every `SUCCEEDED` job.
    public var documentID: String?
    public var document: DocumentJSON?
    /// Every document the job filed, when it filed several (a split), in order.
    public var documents: [DocumentJSON]?
    /// The library documents a PDF_TO_PDF job read, in order.
    public var inputDocuments: [String]?
    /// The files and pages a job with several inputs converts and merges, in order.
    public var inputs: [JobInput]?
    /// The PDF operations it runs (passwords are never shown).
    public var operations: [PDFOperation]?
    public var replaceOriginal: Bool?
    /// Bytes of its input documents: beside `document.size`, what an optimize saved.
    public var inputSize: Int64?
    public var error: String?
    public var errorMessage: String?

    public init(_ job: Job) {
        jobID = job.id.lowercased
        type = job.spec.type
        status = job.state.status
        phase = job.state.status == .processing ? job.state.phase : nil
        createdAt = job.createdAt
        updatedAt = job.updatedAt
        attempts = job.state.attempts
        url = job.spec.url
        originalFilename = job.spec.originalFilename
        folder = job.spec.folder
        name = job.spec.name
        options = job.spec.options == ConversionOptions() ? nil : job.spec.options
        documentID = job.state.documentID?.lowercased
        inputDocuments = job.spec.documents?.map(\.lowercased)
        inputs = job.spec.inputs
        operations = job.spec.operations
        replaceOriginal = job.spec.replaceOriginal
        inputSize = job.spec.inputSize
        if let failure = job.state.failure, job.state.status == .failed || job.state.status == .cancelled {
            error = failure.code
            errorMessage = failure.message
        } else if job.state.status == .cancelled {
            error = "cancelled"
            errorMessage = "the job was cancelled"
        }
    }

    enum CodingKeys: String, CodingKey {
        case jobID = "job_id"
        case type, status, phase
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case attempts, url
        case originalFilename = "original_filename"
        case folder, name, options, upload
        case downloadURL = "download_url"
        case documentID = "document_id"
        case documents
        case inputDocuments = "input_documents"
        case inputs, operations
        case replaceOriginal = "replace_original"
        case inputSize = "input_size"
        case document, error
        case errorMessage = "error_message"
    }

    /// `phase` is written as null while absent, so clients can rely on the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobID, forKey: .jobID)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encode(phase, forKey: .phase)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(attempts, forKey: .attempts)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(originalFilename, forKey: .originalFilename)
        try container.encodeIfPresent(folder, forKey: .folder)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(options, forKey: .options)
        try container.encodeIfPresent(upload, forKey: .upload)
        try container.encodeIfPresent(downloadURL, forKey: .downloadURL)
        try container.encodeIfPresent(documentID, forKey: .documentID)
        try container.encodeIfPresent(document, forKey: .document)
        try container.encodeIfPresent(documents, forKey: .documents)
        try container.encodeIfPresent(inputDocuments, forKey: .inputDocuments)
        try container.encodeIfPresent(inputs, forKey: .inputs)
        try container.encodeIfPresent(operations, forKey: .operations)
        try container.encodeIfPresent(replaceOriginal, forKey: .replaceOriginal)
        try container.encodeIfPresent(inputSize, forKey: .inputSize)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(errorMessage, forKey: .errorMessage)
    }
}
