import Crypto
import Foundation
import GatewayCore
import Hummingbird

/// A `multipart/form-data` body received as a stream: each file part goes straight to disk
/// (capped together, optionally hashed), text parts are kept: at most `maxFields` of them (the
/// `url` inputs of a merging form count with its files instead), each at most 64 KiB and all
/// together at most 256 KiB, so a form of endless small fields cannot fill memory.
package struct MultipartForm {
    package struct File {
        package var path: String
        /// The part's name: which field of the form the file came in.
        package var field: String?
        package var filename: String?
        /// The part's `Content-Type`: what the file is when it has no name.
        package var mediaType: String?
        package var bytes: Int64
        package var sha256: String?

        package init(path: String, field: String? = nil, filename: String? = nil, mediaType: String? = nil, bytes: Int64, sha256: String? = nil) {
            self.path = path
            self.field = field
            self.filename = filename
            self.mediaType = mediaType
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    /// A file part or a `url` field, in the order the form sent them: the inputs of a job that
    /// merges several.
    package enum Entry: Equatable {
        case file(Int)
        case url(String)
    }

    /// The last value of each text field.
    package var fields: [String: String] = [:]
    /// Every value of each text field, in order: for the fields a form repeats.
    package var repeated: [String: [String]] = [:]
    package var files: [File] = []
    package var entries: [Entry] = []

    /// The first (for most forms, the only) file.
    package var file: File? { files.first }

    static let maxFieldBytes = 64 * 1024
    // Gotenberg's LibreOffice route alone takes some 45 fields; the bytes stay capped below.
    static let maxFields = 128
    static let maxTotalFieldBytes = 256 * 1024

    /// Receives the form of `request` with its one `file` part at `path`: what a document import
    /// takes. Refuses a form without that part, saying what it should hold.
    package static func receiveFile(
        of request: Request,
        to path: String,
        maxBytes: Int64,
        hashing: Bool,
        holding what: String
    ) async throws -> (form: MultipartForm, file: File) {
        let form = try await receive(
            request.body,
            contentType: request.headers[.contentType] ?? "",
            filePart: "file",
            maxFiles: 1,
            paths: { path },
            maxBytes: maxBytes,
            hashing: hashing
        )
        guard let file = form.file else {
            throw APIError(.badRequest, "file_required", "the form has no 'file' part; send \(what) as a part named file")
        }
        return (form, file)
    }

    package static func receive(
        _ body: some AsyncSequence<ByteBuffer, any Error>,
        contentType: String,
        filePart: String?,
        maxFiles: Int,
        paths: () -> String,
        maxBytes: Int64,
        hashing: Bool
    ) async throws -> MultipartForm {
        guard let boundary = MultipartStreamParser.boundary(fromContentType: contentType) else {
            throw APIError(.badRequest, "bad_multipart", "the Content-Type has no boundary; let your HTTP library build the multipart body")
        }
        var parser: MultipartStreamParser
        do {
            parser = try MultipartStreamParser(boundary: boundary)
        } catch {
            throw APIError(.badRequest, error.code, error.message)
        }
        /// A file part: the one named `filePart`, or, with none named (Gotenberg's forms), any
        /// part that carries a file name.
        func isFile(_ headers: MultipartPartHeaders?) -> Bool {
            guard let headers else { return false }
            return filePart.map { headers.name == $0 } ?? (headers.filename != nil)
        }
        let fileLabel = filePart ?? "files"
        var form = MultipartForm()
        var handle: FileHandle?
        var hasher: SHA256?
        var current: MultipartPartHeaders?
        var text: [UInt8] = []
        var fieldCount = 0
        var inputCount = 0
        var fieldBytes = 0
        var written: Int64 = 0
        var fileBytes: Int64 = 0
        defer { try? handle?.close() }

        func apply(_ events: [MultipartEvent]) throws {
            for event in events {
                switch event {
                case .partBegin(let headers):
                    current = headers
                    text = []
                    // Where a form may merge several inputs, a `url` field is one of them, counted
                    // with the files and not against the text fields (a 100-page merge is fine).
                    let isURLInput = filePart != nil && maxFiles > 1 && headers.name == "url"
                    if isFile(headers) || isURLInput {
                        guard inputCount < maxFiles else {
                            throw APIError(
                                .badRequest,
                                maxFiles == 1 ? "bad_multipart" : "too_many_files",
                                maxFiles == 1
                                    ? "send one '\(fileLabel)' part per request"
                                    : "send at most \(maxFiles) inputs ('\(fileLabel)' parts and 'url' fields together) per request"
                            )
                        }
                        inputCount += 1
                    }
                    if isFile(headers) {
                        let path = paths()
                        guard FileManager.default.createFile(atPath: path, contents: nil) else {
                            throw APIError(.internalServerError, "storage_error", "cannot create the upload file; is the store writable?")
                        }
                        form.files.append(
                            File(path: path, field: headers.name, filename: headers.filename, mediaType: headers.contentType, bytes: 0, sha256: nil)
                        )
                        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                        hasher = hashing ? SHA256() : nil
                        fileBytes = 0
                    } else if !isURLInput {
                        fieldCount += 1
                        guard fieldCount <= maxFields else {
                            throw APIError(
                                .contentTooLarge,
                                "too_many_fields",
                                "the form has more than \(maxFields) text fields; send at most \(maxFields) besides the '\(fileLabel)' part"
                            )
                        }
                    }
                case .body(let bytes):
                    if isFile(current), let file = handle {
                        written += Int64(bytes.count)
                        fileBytes += Int64(bytes.count)
                        // One cap for all files together: several parts are no way around it.
                        if written > maxBytes { throw BodyToFile.tooLarge(maxBytes) }
                        hasher?.update(data: bytes)
                        try file.write(contentsOf: bytes)
                    } else {
                        text += bytes
                        fieldBytes += bytes.count
                        if text.count > maxFieldBytes {
                            throw APIError(.contentTooLarge, "field_too_large", "form field '\(current?.name ?? "?")' is over 64 KiB")
                        }
                        if fieldBytes > maxTotalFieldBytes {
                            throw APIError(
                                .contentTooLarge,
                                "fields_too_large",
                                "the form's text fields are over 256 KiB together; send the document in the '\(fileLabel)' part and keep fields short"
                            )
                        }
                    }
                case .partEnd:
                    if isFile(current) {
                        try handle?.close()
                        handle = nil
                        let last = form.files.count - 1
                        form.files[last].bytes = fileBytes
                        form.files[last].sha256 = hasher.map { hexString($0.finalize()) }
                        form.entries.append(.file(last))
                    } else if let name = current?.name {
                        let value = String(decoding: text, as: UTF8.self)
                        form.fields[name] = value
                        form.repeated[name, default: []].append(value)
                        if name == "url" { form.entries.append(.url(value)) }
                    }
                    current = nil
                }
            }
        }

        do {
            for try await buffer in body {
                let events: [MultipartEvent]
                do {
                    events = try parser.feed(buffer.readableBytesView)
                } catch {
                    throw APIError(.badRequest, error.code, error.message)
                }
                try apply(events)
            }
            do {
                try parser.finish()
            } catch {
                throw APIError(.badRequest, error.code, error.message)
            }
        } catch {
            for file in form.files { unlink(file.path) }
            throw error
        }
        return form
    }
}
