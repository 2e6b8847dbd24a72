import Foundation
import GatewayJobModel

/// A job as the API answers it and `pdfgate jobs --json` prints it: the mobile client's keys
/// (`job_id`, `status`, `upload`, `download_url`, `error_message`) plus the additive ones of
/// DESIGN §3.1. The server adds the signed URLs and the document; the CLI has none to sign.
/// One writer, `write(to:)`, serves HTTP answers, events, webhooks and the CLI.
public struct JobJSON: Sendable {
    public struct Upload: Sendable {
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
    /// The `Gotenberg-Trace` of the Gotenberg request the job answers.
    public var trace: String?
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
    /// What the result does not show of the original (a substituted font…); empty: nothing.
    public var warnings: [String] = []

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
        trace = job.spec.trace
        folder = job.spec.folder
        name = job.spec.name
        options = job.spec.options == ConversionOptions() ? nil : job.spec.options
        documentID = job.state.documentID?.lowercased
        inputDocuments = job.spec.documents?.map(\.lowercased)
        inputs = job.spec.inputs
        operations = job.spec.operations
        replaceOriginal = job.spec.replaceOriginal
        inputSize = job.spec.inputSize
        warnings = job.state.warnings
        if let failure = job.state.failure, job.state.status == .failed || job.state.status == .cancelled {
            error = failure.code
            errorMessage = failure.message
        } else if job.state.status == .cancelled {
            error = "cancelled"
            errorMessage = "the job was cancelled"
        }
    }
}

extension JobJSON {
    /// The job's JSON, written by hand: a job is the API's most frequent answer (every poll),
    /// and `JSONEncoder` spent more on it than PostgreSQL spent reading the row. The scalar
    /// fields are written directly; the rarer nested values of many fields (options, inputs,
    /// operations) through `JSONEncoder`. `phase` is written as null while absent, so clients
    /// can rely on the key; other absent fields are left out.
    public func write(to out: inout JSONOutput) throws {
        out.beginObject()
        out.key("job_id")
        out.string(jobID)
        out.key("type")
        out.string(type.rawValue)
        out.key("status")
        out.string(status.rawValue)
        out.key("phase")
        out.string(phase?.rawValue)
        out.key("created_at")
        out.date(createdAt)
        out.key("updated_at")
        out.date(updatedAt)
        out.key("attempts")
        out.int(Int64(attempts))
        func present(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            out.key(key)
            out.string(value)
        }
        present("url", url)
        present("original_filename", originalFilename)
        present("trace", trace)
        present("folder", folder)
        present("name", name)
        if let options {
            out.key("options")
            try out.encoded(options)
        }
        if let upload {
            out.key("upload")
            out.beginObject()
            out.key("method")
            out.string(upload.method)
            out.key("url")
            out.string(upload.url)
            out.key("expires_at")
            out.date(upload.expiresAt)
            out.key("max_bytes")
            out.int(upload.maxBytes)
            out.endObject()
        }
        present("download_url", downloadURL)
        present("document_id", documentID)
        if let document {
            out.key("document")
            document.write(to: &out)
        }
        if let documents {
            out.key("documents")
            out.beginArray()
            for document in documents { document.write(to: &out) }
            out.endArray()
        }
        if let inputDocuments {
            out.key("input_documents")
            out.beginArray()
            for id in inputDocuments { out.string(id) }
            out.endArray()
        }
        if let inputs {
            out.key("inputs")
            try out.encoded(inputs)
        }
        if let operations {
            out.key("operations")
            try out.encoded(operations)
        }
        if let replaceOriginal {
            out.key("replace_original")
            out.bool(replaceOriginal)
        }
        if let inputSize {
            out.key("input_size")
            out.int(inputSize)
        }
        present("error", error)
        present("error_message", errorMessage)
        if !warnings.isEmpty {
            out.key("warnings")
            out.beginArray()
            for warning in warnings { out.string(warning) }
            out.endArray()
        }
        out.endObject()
    }

    /// The job's JSON as bytes, for an HTTP answer, an event or a webhook.
    public func json() throws -> [UInt8] {
        var out = JSONOutput(capacity: 768)
        try write(to: &out)
        return out.bytes
    }
}
