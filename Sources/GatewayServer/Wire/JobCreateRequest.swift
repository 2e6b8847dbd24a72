import Foundation
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel

/// The body of `POST /v1/jobs` (and the fields of a one-shot create), every key optional so a
/// missing one gets a message naming it rather than a decoding error.
struct JobCreateRequest: Decodable, Sendable {
    var type: String?
    var url: String?
    var originalFilename: String?
    var folder: String?
    var name: String?
    var onConflict: String?
    var callbackURL: String?
    var timeoutSeconds: Double?
    var options: ConversionOptions?
    /// PDF_TO_PDF on library documents: their ids, in order.
    var documents: [String]?
    var operations: [PDFOperation]?
    var replaceOriginal: Bool?
    /// Several files and pages, each converted, then merged in order (a PDF_TO_PDF job).
    var inputs: [JobInput]?
    /// Opens encrypted inputs; `passwords` by document id. Kept as `JobSecrets`, never stored.
    var password: String?
    var passwords: [String: String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case type, url
        case originalFilename = "original_filename"
        case folder, name
        case onConflict = "on_conflict"
        case callbackURL = "callback_url"
        case timeoutSeconds = "timeout_seconds"
        case options
        case documents, operations
        case replaceOriginal = "replace_original"
        case inputs
        case password, passwords
    }

    init() {}

    /// Every field of `POST /v1/jobs`.
    static let fields = Set(CodingKeys.allCases.map(\.rawValue))

    /// The fields that a job on library documents takes (merge, split, operations).
    static let documentJobFields: Set<String> = [
        "folder", "name", "on_conflict", "callback_url", "timeout_seconds", "password", "passwords",
    ]

    /// A client's JSON body, read strictly (an unknown field or option is refused); the errors
    /// a client can act on keep their own codes, anything else is `invalid_json`. `fields` are
    /// the ones `route` takes.
    static func decoding(_ data: Data, fields: Set<String> = fields, route: String = "a job request") throws -> JobCreateRequest {
        try JSONBody.checkDepth(data)
        try JSONBody.checkKeys(data, allowed: fields, route: route)
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[ConversionOptions.strictDecoding] = true
            return try decoder.decode(JobCreateRequest.self, from: data)
        } catch let error as OptionsError {
            throw APIError.from(error)
        } catch let error as OperationError {
            throw error
        } catch let error as DecodingError {
            if let input = Self.inputProblem(error) { throw input }
            throw APIError(.badRequest, "invalid_json", "the body is not a job request: \(JobController.describe(error))")
        } catch {
            throw APIError(.badRequest, "invalid_json", "the body is not a job request: \(JobController.describe(error))")
        }
    }

    /// An entry of `inputs` that is neither a file nor a URL, said as `inputs[2]: …`.
    private static func inputProblem(_ error: DecodingError) -> APIError? {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found): context = found
        @unknown default: return nil
        }
        let path = context.codingPath
        guard path.first?.stringValue == CodingKeys.inputs.stringValue, path.count >= 2, let index = path[1].intValue else { return nil }
        let detail =
            if case .dataCorrupted = error { context.debugDescription } else {
                "an input is {\"file\": \"name.ext\"} or {\"url\": \"https://…\"}, each a string"
            }
        return APIError(.badRequest, "invalid_input", "inputs[\(index)]: \(detail)")
    }

    /// The passwords the request brought.
    var secrets: JobSecrets {
        JobSecrets(password: password, passwords: Dictionary((passwords ?? [:]).map { ($0.key.lowercased(), $0.value) }) { first, _ in first })
    }

    /// From text fields (query parameters or multipart parts), the one-shot forms.
    init(fields: [String: String]) throws(APIError) {
        type = fields["type"]
        url = fields["url"]
        originalFilename = fields["original_filename"] ?? fields["filename"]
        folder = fields["folder"]
        name = fields["name"]
        onConflict = fields["on_conflict"]
        // Checked now: a body that names its own would otherwise hide a bad query value.
        _ = try Self.jobType(type)
        _ = try Self.conflictPolicy(onConflict)
        callbackURL = fields["callback_url"]
        if let text = fields["timeout_seconds"] {
            guard let seconds = Double(text) else { throw APIError(.badRequest, "invalid_argument", "timeout_seconds '\(text)' is not a number") }
            timeoutSeconds = seconds
        }
        options = try Self.options(fields)
        password = fields["password"]
        if let text = fields["operations"] {
            do {
                operations = try JSONDecoder().decode([PDFOperation].self, from: Data(text.utf8))
            } catch let error as OperationError {
                throw APIError.from(error)
            } catch {
                throw APIError(.badRequest, "invalid_operation", "operations must be a JSON list such as [{\"op\": \"rotate\", \"angle\": 90}]")
            }
            // An outline or an attached file can outgrow a URL (a request head is at most 80 KiB):
            // they come in a JSON body.
            if let index = operations?.firstIndex(where: { ["bookmarks", "attach", "facturx"].contains($0.name) }) {
                let name = operations?[index].name ?? "bookmarks"
                throw APIError(
                    .badRequest,
                    "invalid_operation",
                    "operations[\(index)]: \(name) comes in a JSON create's body (or POST /v1/documents/{id}/operations), not in a query parameter or form field"
                )
            }
        }
    }

    /// This request with each field it leaves out taken from `defaults`.
    func filling(from defaults: JobCreateRequest) -> JobCreateRequest {
        var filled = self
        filled.type = type ?? defaults.type
        filled.url = url ?? defaults.url
        filled.originalFilename = originalFilename ?? defaults.originalFilename
        filled.folder = folder ?? defaults.folder
        filled.name = name ?? defaults.name
        filled.onConflict = onConflict ?? defaults.onConflict
        filled.callbackURL = callbackURL ?? defaults.callbackURL
        filled.timeoutSeconds = timeoutSeconds ?? defaults.timeoutSeconds
        filled.options = options ?? defaults.options
        filled.documents = documents ?? defaults.documents
        filled.operations = operations ?? defaults.operations
        filled.replaceOriginal = replaceOriginal ?? defaults.replaceOriginal
        filled.inputs = inputs ?? defaults.inputs
        filled.password = password ?? defaults.password
        filled.passwords = passwords ?? defaults.passwords
        return filled
    }

    /// Conversion options of a one-shot create: an `options` field holding the same JSON object
    /// as the JSON create, or its keys as fields of their own (`paper_width=8.27&landscape=true`).
    static func options(_ fields: [String: String]) throws(APIError) -> ConversionOptions? {
        do {
            return try ConversionOptions.fromTextFields(fields)
        } catch {
            throw APIError.from(error)
        }
    }

    /// The job spec, or a 400 naming the field that cannot be read. What the values mean (a
    /// format the type converts, a URL the rules allow) is `JobIntake.check`'s business.
    func spec(defaultTypeFromFilename: Bool) throws(APIError) -> JobSpec {
        let jobType: JobType
        if let type = try Self.jobType(type) {
            jobType = type
        } else if defaultTypeFromFilename, let originalFilename {
            jobType = JobType.forFilename(originalFilename)
        } else if let inputs, !inputs.isEmpty, inputs.allSatisfy({ $0.type == .scanToPDF }) {
            // Photos of pages, several at once: one scan, each image a page as it is.
            jobType = .scanToPDF
        } else if documents != nil || inputs != nil {
            jobType = .pdfToPDF
        } else {
            throw APIError(
                .badRequest,
                "type_required",
                "say what to convert: \"type\" is URL_TO_PDF, DOC_TO_PDF, EBOOK_TO_PDF, SCAN_TO_PDF or PDF_TO_PDF"
            )
        }
        let conflict = try Self.conflictPolicy(onConflict) ?? .rename
        var documentIDs: [UUID]?
        if let documents { documentIDs = try Self.documentIDs(documents) }
        return JobSpec(
            type: jobType,
            url: url,
            originalFilename: originalFilename,
            folder: folder,
            name: name,
            onConflict: conflict,
            options: options ?? ConversionOptions(),
            callbackURL: callbackURL,
            timeoutSeconds: timeoutSeconds,
            documents: documentIDs,
            operations: operations,
            replaceOriginal: replaceOriginal,
            inputs: inputs
        )
    }

    static func jobType(_ text: String?) throws(APIError) -> JobType? {
        guard let text else { return nil }
        // A screenshot is no document for the library: its route answers with the image.
        let creatable = JobType.allCases.filter { $0 != .screenshot }
        guard let type = JobType(rawValue: text), creatable.contains(type) else {
            var message = "type '\(text)' is not one of \(creatable.map(\.rawValue).joined(separator: ", "))"
            if text == JobType.screenshot.rawValue {
                message += "; screenshots are taken through /forms/chromium/screenshot/{url,html,markdown}, which answer with the image"
            }
            throw APIError(.badRequest, "invalid_type", message)
        }
        return type
    }

    static func conflictPolicy(_ text: String?) throws(APIError) -> ConflictPolicy? {
        guard let text else { return nil }
        guard let policy = ConflictPolicy(rawValue: text) else {
            throw APIError(.badRequest, "invalid_argument", "on_conflict '\(text)' is not fail or rename")
        }
        return policy
    }

    /// The spec of a one-shot form with several files and URLs: `inputs` in the form's order.
    func spec(inputs: [JobInput]) throws(APIError) -> JobSpec {
        var request = self
        request.inputs = inputs
        return try request.spec(defaultTypeFromFilename: false)
    }

    /// Document ids, or a 400 naming the one that is not an id.
    static func documentIDs(_ texts: [String]) throws(APIError) -> [UUID] {
        guard !texts.isEmpty else { throw APIError(.badRequest, "invalid_argument", "documents is empty: name at least one document id") }
        var ids: [UUID] = []
        for text in texts {
            guard let id = UUID(uuidString: text) else {
                throw APIError(.badRequest, "invalid_argument", "documents: '\(text)' is not a document id (a UUID from GET /v1/documents)")
            }
            ids.append(id)
        }
        return ids
    }
}
