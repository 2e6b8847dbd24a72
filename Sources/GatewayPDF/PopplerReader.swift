import CPoppler
import Foundation
import GatewayLibraryModel

/// Reads a PDF's facts with poppler-glib. Runs only inside the inspect worker process, one
/// document at a time on one thread: Poppler cannot be cancelled and crashes when a document is
/// shared by threads, so the gateway never loads it in its own process.
package final class PopplerReader {
    /// Kept open for the reader's life: Poppler rebuilds its global state whenever the last
    /// document closes, which costs many times what opening one while another is alive does.
    private let keepAlive: OpaquePointer?

    package init() {
        keepAlive = Self.openKeepAliveDocument()
    }

    deinit {
        pdfgate_unref_document(keepAlive)
    }

    /// Inspects the PDF at `path`, rendering a page-1 thumbnail and writing the pages' text
    /// (`PageTextWriter`) when asked.
    package func inspect(
        path: String,
        thumbnail: ThumbnailRequest?,
        textOutputPath: String? = nil
    ) throws(InspectionError) -> (PDFInfo, PageTextResult?) {
        let absolute = Self.absolute(path)
        try PDFFileCheck.check(path: absolute)
        let name = PDFFileCheck.displayName(absolute)
        let (document, encrypted) = try open(absolute, name: name)
        defer { pdfgate_unref_document(document) }

        let pageCount = Int(poppler_document_get_n_pages(document))
        guard pageCount > 0 else {
            throw InspectionError(.damaged, "\(name) is damaged: it has no readable pages")
        }
        guard let page = poppler_document_get_page(document, 0) else {
            throw InspectionError(.damaged, "\(name) is damaged: its first page cannot be read")
        }
        defer { pdfgate_unref_page(page) }
        // Already swapped by Poppler for a /Rotate of 90 or 270, which is what PDFInfo wants.
        var width = 0.0
        var height = 0.0
        poppler_page_get_size(page, &width, &height)

        var major: guint = 0
        var minor: guint = 0
        poppler_document_get_pdf_version(document, &major, &minor)

        let xmp = Self.take(poppler_document_get_metadata(document))
        let info = PDFInfo(
            pageCount: pageCount,
            title: Self.take(poppler_document_get_title(document)),
            author: Self.take(poppler_document_get_author(document)),
            subject: Self.take(poppler_document_get_subject(document)),
            keywords: Self.take(poppler_document_get_keywords(document)),
            creator: Self.take(poppler_document_get_creator(document)),
            producer: Self.take(poppler_document_get_producer(document)),
            createdAt: Self.take(poppler_document_get_creation_date_time(document)),
            modifiedAt: Self.take(poppler_document_get_modification_date_time(document)),
            pdfVersion: "\(major).\(minor)",
            pageWidth: width,
            pageHeight: height,
            encrypted: encrypted,
            linearized: poppler_document_is_linearized(document) != 0,
            pdfa: xmp.flatMap(XMPConformance.pdfaLevel(xmp:))
        )

        if let thumbnail {
            try ThumbnailRenderer.render(page: page, size: (width, height), request: thumbnail, name: name)
        }
        let text = textOutputPath.map { PageTextWriter.write(document, pageCount: pageCount, to: Self.absolute($0)) }
        return (info, text)
    }

    /// Opens `path` and tells whether it is encrypted. poppler-glib has no getter for that, so
    /// the first attempt passes a password nobody uses: an unencrypted file ignores it, while an
    /// encrypted one refuses it even when its user password is empty. Only then is the empty
    /// password tried. Unencrypted files, the common case, are opened once.
    private func open(_ path: String, name: String) throws(InspectionError) -> (OpaquePointer, Bool) {
        var uriError: UnsafeMutablePointer<GError>?
        guard let uri = g_filename_to_uri(path, nil, &uriError) else {
            let reason = Self.consume(uriError)?.message ?? "invalid file name"
            throw InspectionError(.unreadable, "\(name) cannot be opened: \(reason)")
        }
        defer { g_free(uri) }

        switch Self.open(uri: uri, password: Self.probePassword) {
        case .success(let document):
            return (document, false)
        case .failure(let error) where error.code != pdfgate_poppler_error_encrypted():
            throw Self.classify(error, name: name)
        case .failure:
            switch Self.open(uri: uri, password: nil) {
            case .success(let document):
                return (document, true)
            case .failure(let error):
                throw Self.classify(error, name: name)
            }
        }
    }

    /// Never a real password: only an encrypted file can reject it.
    private static let probePassword = "pdfgate-encryption-probe-7d3c41f0b9e2"

    private struct PopplerFailure: Error {
        var code: Int32
        var message: String
    }

    private static func open(uri: UnsafeMutablePointer<gchar>, password: String?) -> Result<OpaquePointer, PopplerFailure> {
        var error: UnsafeMutablePointer<GError>?
        let document = poppler_document_new_from_file(uri, password, &error)
        let failure = consume(error)
        // A NULL document is never used, whatever the error says.
        guard let document else {
            return .failure(failure ?? PopplerFailure(code: pdfgate_poppler_error_invalid(), message: "unknown error"))
        }
        return .success(document)
    }

    private static func classify(_ failure: PopplerFailure, name: String) -> InspectionError {
        switch failure.code {
        case pdfgate_poppler_error_encrypted():
            return InspectionError(
                .encrypted,
                "\(name) is encrypted with a password; remove the password (e.g. `qpdf --decrypt --password=… in.pdf out.pdf`) and try again"
            )
        case pdfgate_poppler_error_open_file():
            return InspectionError(.unreadable, "\(name) cannot be opened: \(failure.message)")
        default:
            return InspectionError(
                .damaged,
                "\(name) is damaged and cannot be read as a PDF (\(failure.message)); re-export it from its source application, or try repairing it (e.g. `qpdf in.pdf out.pdf`)"
            )
        }
    }

    private static func consume(_ error: UnsafeMutablePointer<GError>?) -> PopplerFailure? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let code = error.pointee.domain == pdfgate_poppler_error_quark() ? error.pointee.code : pdfgate_poppler_error_invalid()
        return PopplerFailure(code: code, message: message)
    }

    /// Takes ownership of a GLib string: nil when absent or blank.
    private static func take(_ string: UnsafeMutablePointer<gchar>?) -> String? {
        guard let string else { return nil }
        defer { g_free(string) }
        let value = String(cString: string)
        return value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : value
    }

    /// Takes ownership of a GDateTime.
    private static func take(_ date: OpaquePointer?) -> Date? {
        guard let date else { return nil }
        defer { g_date_time_unref(date) }
        let seconds = Double(g_date_time_to_unix(date))
        let micros = Double(g_date_time_get_microsecond(date))
        return Date(timeIntervalSince1970: seconds + micros / 1_000_000)
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// A one-page PDF held in memory for the reader's life (see `keepAlive`).
    private static func openKeepAliveDocument() -> OpaquePointer? {
        var bytes = Array(MinimalPDF.onePage.utf8)
        let gbytes = bytes.withUnsafeMutableBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(gbytes) }
        var error: UnsafeMutablePointer<GError>?
        let document = poppler_document_new_from_bytes(gbytes, nil, &error)
        _ = consume(error)
        return document
    }
}
