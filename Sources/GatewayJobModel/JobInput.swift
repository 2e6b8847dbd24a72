import Foundation

/// One input of a job that merges several (`JobSpec.inputs`): a file that came with the create,
/// or a web page. Each is converted by the backend of its own type, then all are merged in order.
///
/// On the wire: `{"file": "intro.docx"}` or `{"url": "https://example.com/"}`.
public enum JobInput: Sendable, Equatable, Hashable {
    /// An uploaded file, by the name whose extension picks its converter.
    case file(String)
    /// A web page, checked against the SSRF rules like a URL job's.
    case url(String)

    /// The job type that converts this input on its own.
    public var type: JobType {
        switch self {
        case .file(let name): JobType.forFilename(name)
        case .url: .urlToPDF
        }
    }

    /// The uploaded file's name; nil for a page.
    public var filename: String? {
        if case .file(let name) = self { name } else { nil }
    }

    /// How a message names the input.
    public var label: String {
        switch self {
        case .file(let name): "'\(name)'"
        case .url(let url): url
        }
    }

    /// The document name it would give on its own: the file's name, or the page's host and path.
    var documentName: String {
        switch self {
        case .file(let name): JobSpec(type: type, originalFilename: name).defaultDocumentName
        case .url(let url): JobSpec(type: .urlToPDF, url: url).defaultDocumentName
        }
    }

    /// How many inputs one job may merge: each is converted in turn within the job's deadline.
    public static let maxCount = 100
}

extension JobInput: Codable {
    enum CodingKeys: String, CodingKey {
        case file, url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let file = try container.decodeIfPresent(String.self, forKey: .file)
        let url = try container.decodeIfPresent(String.self, forKey: .url)
        switch (file, url) {
        case (let file?, nil): self = .file(file)
        case (nil, let url?): self = .url(url)
        default:
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "an input is {\"file\": \"name.ext\"} or {\"url\": \"https://…\"}: exactly one of the two"
                )
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .file(let name): try container.encode(name, forKey: .file)
        case .url(let url): try container.encode(url, forKey: .url)
        }
    }
}
