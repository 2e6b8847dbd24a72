import Foundation
import GatewayCore
import GatewayHTTPClient

/// One Gotenberg 8 call for a conversion request: the route and the form fields it takes.
struct GotenbergForm: Sendable {
    /// Path under the base URL, e.g. `/forms/chromium/convert/url`.
    var route: String
    var parts: [MultipartPart]
    /// What the call does, for error messages.
    var summary: String

    /// Chromium renders these; LibreOffice would import them as Writer/Web documents.
    static let htmlExtensions: Set<String> = ["html", "htm"]

    /// Picks the route by source: a URL goes to Chromium's URL route, an `.html` upload to its
    /// HTML route (as `index.html`, the only name Gotenberg accepts there), anything else to
    /// LibreOffice under its original name, whose extension tells Gotenberg which importer to use.
    ///
    /// - Throws: a rejection for ebooks, which Gotenberg cannot read.
    static func make(for request: ConversionRequest) throws(JobFailure) -> GotenbergForm {
        if request.type == .ebookToPDF {
            throw JobFailure(
                .rejected,
                code: "unsupported_job_type",
                "Gotenberg has no ebook support; route EBOOK_TO_PDF to the local converter"
            )
        }
        switch request.source {
        case .pdfs:
            throw JobFailure(.rejected, code: "unsupported_source", "PDF_TO_PDF jobs run on the gateway's own PDF tools, not Gotenberg")
        case .url(let url):
            return GotenbergForm(
                route: "/forms/chromium/convert/url",
                parts: [.text("url", url)] + chromiumOptions(request.options),
                summary: "converting a web page"
            )
        case .file(let path, let originalFilename):
            let ext = (originalFilename as NSString).pathExtension.lowercased()
            if htmlExtensions.contains(ext) {
                let page = MultipartPart.file("files", path: path, filename: "index.html", contentType: "text/html")
                return GotenbergForm(
                    route: "/forms/chromium/convert/html",
                    parts: [page] + chromiumOptions(request.options),
                    summary: "converting an HTML file"
                )
            }
            var parts = [MultipartPart.file("files", path: path, filename: safeFilename(originalFilename))]
            if let landscape = request.options.landscape { parts.append(.text("landscape", String(landscape))) }
            return GotenbergForm(route: "/forms/libreoffice/convert", parts: parts, summary: "converting \(ext.isEmpty ? "a" : "a .\(ext)") file")
        }
    }

    /// Gotenberg reads bare numbers as inches, which is what `ConversionOptions` holds.
    static func chromiumOptions(_ options: ConversionOptions) -> [MultipartPart] {
        var parts: [MultipartPart] = []
        if let width = options.paperWidth { parts.append(.text("paperWidth", inches(width))) }
        if let height = options.paperHeight { parts.append(.text("paperHeight", inches(height))) }
        if let margin = options.margin {
            for side in ["marginTop", "marginBottom", "marginLeft", "marginRight"] { parts.append(.text(side, inches(margin))) }
        }
        if let landscape = options.landscape { parts.append(.text("landscape", String(landscape))) }
        if let background = options.printBackground { parts.append(.text("printBackground", String(background))) }
        return parts
    }

    private static func inches(_ value: Double) -> String {
        // Plain decimal notation: "8.27", not "8.27e+00"; Gotenberg parses it with Go's ParseFloat.
        String(format: "%.4f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
    }

    /// The client's file name with the characters that would break a `Content-Disposition`
    /// parameter or a path on Gotenberg's side replaced; the extension survives.
    static func safeFilename(_ name: String) -> String {
        let cleaned = String(
            name.unicodeScalars.map { scalar -> Character in
                if CharacterSet.controlCharacters.contains(scalar) || "/\\\"".unicodeScalars.contains(scalar) { return "_" }
                return Character(scalar)
            }
        )
        let trimmed = cleaned.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.hasPrefix(".") ? "document" + trimmed : trimmed
    }
}
