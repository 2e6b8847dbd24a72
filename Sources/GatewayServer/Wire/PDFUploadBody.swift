import Foundation
import GatewayHTTPServing
import Hummingbird

/// A PDF sent as the raw body or as the `file` part of a form: an import, a backup's PUT.
enum PDFUploadBody {
    /// Writes the PDF to `path`; returns the request's fields (the query's, then the form's,
    /// which win) and the name the file came with, if any.
    static func receive(_ request: Request, to path: String, maxBytes: Int64) async throws -> (fields: [String: String], filename: String?) {
        var fields = request.queryDictionary
        var filename = request.headers[.contentDisposition].flatMap(ContentDisposition.filename) ?? fields["filename"]
        if request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true {
            let (form, file) = try await MultipartForm.receiveFile(of: request, to: path, maxBytes: maxBytes, hashing: false, holding: "the PDF")
            fields.merge(form.fields) { _, form in form }
            filename = file.filename ?? filename
        } else {
            _ = try await BodyToFile(maxBytes: maxBytes).write(request.body, to: path)
        }
        return (fields, filename)
    }
}
