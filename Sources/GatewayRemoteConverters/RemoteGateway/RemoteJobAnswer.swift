import Foundation
import GatewayJobModel

/// A job as a remote gateway describes it (DESIGN §3.1): the answers to create, submit and poll.
///
/// Decoding is lenient on purpose: unknown keys are ignored and a field of an unexpected shape
/// reads as absent, so a newer peer that adds or nests fields still works.
struct RemoteJobAnswer: Decodable, Sendable, Equatable {
    var jobID: String?
    /// The status as sent; `JobStatus(rawValue:)` is nil for one this side does not know yet.
    var status: String?
    var uploadURL: String?
    var downloadURL: String?
    var errorCode: String?
    var errorMessage: String?

    private enum Keys: String, CodingKey {
        case jobID = "job_id"
        case status, upload
        case downloadURL = "download_url"
        case error
        case errorMessage = "error_message"
    }

    private enum UploadKeys: String, CodingKey { case url }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        jobID = try? container.decodeIfPresent(String.self, forKey: .jobID)
        status = try? container.decodeIfPresent(String.self, forKey: .status)
        uploadURL = try? container.nestedContainer(keyedBy: UploadKeys.self, forKey: .upload).decodeIfPresent(String.self, forKey: .url)
        downloadURL = try? container.decodeIfPresent(String.self, forKey: .downloadURL)
        errorCode = try? container.decodeIfPresent(String.self, forKey: .error)
        errorMessage = try? container.decodeIfPresent(String.self, forKey: .errorMessage)
    }

    init(status: JobStatus) {
        self.status = status.rawValue
    }

    var jobStatus: JobStatus? { status.flatMap(JobStatus.init(rawValue:)) }

    /// Parses a JSON body; nil when it is not a JSON object.
    static func parse(_ body: [UInt8]) -> RemoteJobAnswer? {
        try? JSONDecoder().decode(RemoteJobAnswer.self, from: Data(body))
    }

    /// Codes of a remote failure that say the remote side, not the input, was at fault, so a new
    /// remote job may succeed: its converter was down, crashed, timed out or wrote nothing usable.
    /// Any other code, or none, counts as the remote judging the input: a rejection.
    static let transientRemoteCodes: Set<String> = [
        "converter_unavailable", "converter_cannot_start", "converter_busy", "converter_crashed", "converter_error", "converter_unreachable",
        "converter_connection_lost", "converter_too_slow", "converter_timeout", "timed_out", "no_output", "invalid_output",
        "internal_error", "output_not_stored",
    ]

    /// Whether a FAILED remote job failed for reasons worth a fresh attempt (see `transientRemoteCodes`;
    /// codes ending in `_unavailable` or `_timed_out` count too).
    var failedTransiently: Bool {
        guard let code = errorCode else { return false }
        return Self.transientRemoteCodes.contains(code) || code.hasSuffix("_unavailable") || code.hasSuffix("_timed_out")
    }

    /// The job failure for a FAILED remote job, in the remote's words.
    func failure(remoteID: String) -> JobFailure {
        let message = RemoteOutput.excerpt(errorMessage ?? "no reason given", limit: 1000)
        let code = errorCode.map { " [\($0)]" } ?? ""
        return JobFailure(
            failedTransiently ? .transient : .rejected,
            code: failedTransiently ? "remote_failed" : "conversion_rejected",
            "the remote gateway failed job \(remoteID)\(code): \(message)"
        )
    }
}

/// The create body of DESIGN §3.1; `options` is the additive extension.
struct RemoteJobCreation: Encodable {
    var type: String
    var url: String?
    var originalFilename: String?
    var options: ConversionOptions?

    private enum CodingKeys: String, CodingKey {
        case type, url
        case originalFilename = "original_filename"
        case options
    }

    init(_ request: ConversionRequest) {
        type = request.type.rawValue
        switch request.source {
        case .url(let address): url = address
        case .file(_, let name): originalFilename = name
        case .pdfs: originalFilename = "document.pdf"  // the assembly keeps PDF_TO_PDF local: never sent
        case .images(let images): originalFilename = images.first?.originalFilename  // SCAN_TO_PDF too: never sent
        }
        // Sent only when set, so a peer that predates options sees the mobile client's exact body.
        options = request.options == ConversionOptions() ? nil : request.options
    }
}
