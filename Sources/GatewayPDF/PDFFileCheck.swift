import CPoppler
import Foundation
import GatewayLibraryModel

/// Cheap byte-level checks that run before Poppler reads a file: Poppler gives vague errors for
/// non-PDFs and for files cut short, so these give the user a better answer.
package enum PDFFileCheck {
    /// Poppler, like Acrobat, accepts a `%PDF-` header anywhere in the first 1024 bytes.
    static let headerWindow = 1024
    /// Where a `%%EOF` marker usually sits: the end, give or take a little whitespace.
    static let trailerWindow = 1024

    /// Throws `.unreadable`, `.notAPDF` or `.damaged` unless the file at `path` looks like a
    /// PDF: a `%PDF-` header near its start, and a `%%EOF` marker near its end or else a
    /// structure Poppler can still open. Runs in the inspect worker, which may call Poppler.
    package static func check(path: String) throws(InspectionError) {
        let name = displayName(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw unreadable(name, errno: errno) }
        defer { close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw unreadable(name, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw InspectionError(.unreadable, "\(name) is not a regular file (a directory or a device?)")
        }
        let size = Int(info.st_size)
        if size == 0 {
            throw InspectionError(.notAPDF, "\(name) is not a PDF: it is empty (0 bytes); the upload or download probably failed")
        }

        let head = try read(fd: fd, offset: 0, count: min(size, headerWindow), name: name)
        if !contains(head, "%PDF-") {
            throw InspectionError(
                .notAPDF,
                "\(name) is not a PDF: it does not start with %PDF-; it looks like \(describe(head)). Convert it to PDF first, or send it to the conversion endpoint"
            )
        }

        let tailStart = max(0, size - trailerWindow)
        let tail = try read(fd: fd, offset: tailStart, count: size - tailStart, name: name)
        // Real-world files often carry padding or junk after their last %%EOF (a block-aligned
        // download, a mailer's footer), and Poppler and pdfinfo open them: the marker's absence
        // alone proves nothing. A file cut short is one Poppler cannot open either.
        if !contains(tail, "%%EOF") && !popplerCanOpen(path) {
            throw InspectionError(
                .damaged,
                "\(name) is truncated: it has no %%EOF marker at its end and cannot be opened; the download or conversion was probably cut short. Get a complete copy of the file and try again"
            )
        }
    }

    /// Whether Poppler opens the file. An encrypted one counts: the inspection proper then
    /// reports the password, which is the more useful answer.
    private static func popplerCanOpen(_ path: String) -> Bool {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return false }
        defer { g_free(uri) }
        var error: UnsafeMutablePointer<GError>?
        let document = poppler_document_new_from_file(uri, nil, &error)
        pdfgate_unref_document(document)
        defer { if let error { g_error_free(error) } }
        if document != nil { return true }
        guard let error else { return false }
        return error.pointee.domain == pdfgate_poppler_error_quark() && error.pointee.code == pdfgate_poppler_error_encrypted()
    }

    /// Whether `bytes` contain `marker`, by a plain scan over the buffer: Foundation's generic
    /// `firstRange(of:)` is a large share of a worker's time per file.
    static func contains(_ bytes: [UInt8], _ marker: StaticString) -> Bool {
        bytes.withUnsafeBufferPointer { haystack in
            marker.withUTF8Buffer { needle in
                guard needle.count <= haystack.count, let first = needle.first else { return needle.isEmpty }
                var start = 0
                while start <= haystack.count - needle.count {
                    if haystack[start] == first {
                        var matched = 1
                        while matched < needle.count && haystack[start + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    /// What a non-PDF most likely is, judged by its magic bytes, phrased to follow "it looks like".
    static func describe(_ head: [UInt8]) -> String {
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "a PNG image" }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }
        if starts(Array("GIF8".utf8)) { return "a GIF image" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "a TIFF image" }
        if starts([0x50, 0x4B, 0x03, 0x04]) {
            return "a ZIP archive (an Office document such as .docx/.xlsx/.pptx, an .odt or an .epub are ZIP files too)"
        }
        if starts([0xD0, 0xCF, 0x11, 0xE0]) { return "a legacy Microsoft Office document (.doc/.xls/.ppt)" }
        if starts([0x1F, 0x8B]) { return "a gzip-compressed file" }
        if starts(Array("%!PS".utf8)) { return "a PostScript file" }
        if starts(Array("{\\rtf".utf8)) { return "an RTF document" }

        let text = String(decoding: head, as: UTF8.self)
        let isText = !head.contains(0) && !text.contains("\u{FFFD}")
        if isText {
            let lowered = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html") || lowered.contains("<html") {
                return "an HTML page (perhaps an error or login page saved instead of the document)"
            }
            if lowered.hasPrefix("<?xml") || lowered.hasPrefix("<") { return "an XML or markup file" }
            if lowered.hasPrefix("{") || lowered.hasPrefix("[") { return "JSON or other text" }
            return "plain text"
        }
        return "binary data of an unknown kind"
    }

    /// The file name alone: paths are often staging paths that mean nothing to the user.
    static func displayName(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return "\"\(name.isEmpty ? path : name)\""
    }

    static func unreadable(_ name: String, errno code: Int32) -> InspectionError {
        switch code {
        case ENOENT: InspectionError(.unreadable, "\(name) does not exist")
        case EACCES, EPERM: InspectionError(.unreadable, "\(name) cannot be read: permission denied")
        default: InspectionError(.unreadable, "\(name) cannot be read: \(String(cString: strerror(code)))")
        }
    }

    private static func read(fd: Int32, offset: Int, count: Int, name: String) throws(InspectionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw unreadable(name, errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes[..<filled])
    }
}
