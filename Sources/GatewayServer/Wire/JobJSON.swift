import Foundation
import GatewayCore

/// A job as the API answers it: the mobile client's keys (`job_id`, `status`, `upload`,
/// `download_url`, `error_message`) plus the additive ones of DESIGN §3.1.
struct JobJSON: Encodable, Sendable {
    struct Upload: Encodable, Sendable {
        var method: String
        var url: String
        var expiresAt: Date
        var maxBytes: Int64

        enum CodingKeys: String, CodingKey {
            case method, url
            case expiresAt = "expires_at"
            case maxBytes = "max_bytes"
        }
    }

    var jobID: String
    var type: JobType
    var status: JobStatus
    var phase: JobPhase?
    var createdAt: Date
    var updatedAt: Date
    var attempts: Int
    var url: String?
    var originalFilename: String?
    var folder: String?
    var name: String?
    /// The conversion options the job was created with; absent when it set none.
    var options: ConversionOptions?
    var upload: Upload?
    var downloadURL: String?
    var document: DocumentJSON?
    var error: String?
    var errorMessage: String?

    init(_ job: Job) {
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
        case document, error
        case errorMessage = "error_message"
    }

    /// `phase` is written as null while absent, so clients can rely on the key.
    func encode(to encoder: any Encoder) throws {
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
        try container.encodeIfPresent(document, forKey: .document)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(errorMessage, forKey: .errorMessage)
    }
}
