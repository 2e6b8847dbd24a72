import Foundation
import GatewayConversionFormats
import GatewayHTTPClient
import GatewayJobModel

/// One Gotenberg 8 call for a conversion request: the route and the form fields it takes.
struct GotenbergForm: Sendable {
    /// Path under the base URL, e.g. `/forms/chromium/convert/url`.
    var route: String
    var parts: [MultipartPart]
    /// What the call does, for error messages.
    var summary: String

    /// Chromium renders these; LibreOffice would import them as Writer/Web documents. The same
    /// set the intake counts as HTML, so an option it refuses for pages is never sent to LibreOffice.
    static let htmlExtensions = SourceFormats.html

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
        try checkHeaders(request.options.browser)
        if request.type == .scanToPDF {
            throw JobFailure(.rejected, code: "unsupported_job_type", "Gotenberg cannot lay out scans; route SCAN_TO_PDF to the local converter")
        }
        switch request.source {
        case .pdfs, .images:
            throw JobFailure(.rejected, code: "unsupported_source", "PDF_TO_PDF jobs run on the gateway's own PDF tools, not Gotenberg")
        case .url(let url):
            return GotenbergForm(
                route: "/forms/chromium/convert/url",
                parts: [.text("url", url)] + chromiumOptions(request.options, page: url),
                summary: "converting a web page"
            )
        case .file(let path, let originalFilename):
            let ext = (originalFilename as NSString).pathExtension.lowercased()
            if htmlExtensions.contains(ext) {
                var files = [MultipartPart.file("files", path: path, filename: "index.html", contentType: "text/html")]
                if ext == HTMLBundle.fileExtension {
                    // Gotenberg takes a page's files beside it, flat, by their names.
                    let bundle = try HTMLBundle.unpack(path, into: request.workDirectory + "/gotenberg-bundle")
                    files = [.file("files", path: bundle.index, filename: "index.html", contentType: "text/html")]
                    for (name, file) in bundle.assets.sorted(by: { $0.key < $1.key }) {
                        files.append(
                            .file(
                                "files",
                                path: file,
                                filename: (name as NSString).lastPathComponent,
                                contentType: MediaTypes.mediaType(ofFile: name)
                            )
                        )
                    }
                }
                return GotenbergForm(
                    route: "/forms/chromium/convert/html",
                    parts: files + chromiumOptions(request.options, page: nil),
                    summary: "converting an HTML file"
                )
            }
            let parts =
                [MultipartPart.file("files", path: path, filename: safeFilename(originalFilename))]
                + libreOfficeOptions(request.options, password: request.secrets.password)
            return GotenbergForm(route: "/forms/libreoffice/convert", parts: parts, summary: "converting \(ext.isEmpty ? "a" : "a .\(ext)") file")
        }
    }

    /// Gotenberg reads bare numbers as inches, which is what `ConversionOptions` holds. `page`
    /// is the URL printed, nil for uploaded HTML.
    static func chromiumOptions(_ options: ConversionOptions, page: String?) -> [MultipartPart] {
        var parts: [MultipartPart] = []
        if let width = options.paperWidth { parts.append(.text("paperWidth", inches(width))) }
        if let height = options.paperHeight { parts.append(.text("paperHeight", inches(height))) }
        // Gotenberg's default for a side is 0.39 in.
        if let margins = options.margins(fallback: 0.39) {
            for (side, value) in [
                ("marginTop", margins.top), ("marginBottom", margins.bottom), ("marginLeft", margins.left), ("marginRight", margins.right),
            ] {
                parts.append(.text(side, inches(value)))
            }
        }
        if let landscape = options.landscape { parts.append(.text("landscape", String(landscape))) }
        if let background = options.printsBackground { parts.append(.text("printBackground", String(background))) }
        return parts + browserOptions(options.browser, page: page)
    }

    /// `BrowserOptions` as Gotenberg 8's form fields (its names, its JSON-in-a-field encodings).
    static func browserOptions(_ options: BrowserOptions, page: String?) -> [MultipartPart] {
        var parts: [MultipartPart] = []
        func flag(_ name: String, _ value: Bool?) { if let value { parts.append(.text(name, String(value))) } }
        func json(_ name: String, _ value: Any?) {
            guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) else {
                return
            }
            parts.append(.text(name, String(decoding: data, as: UTF8.self)))
        }
        // A Go duration: "1.5s".
        if let delay = options.waitDelay { parts.append(.text("waitDelay", inches(delay) + "s")) }
        if let selector = options.waitForSelector { parts.append(.text("waitForSelector", selector)) }
        if let expression = options.waitForExpression { parts.append(.text("waitForExpression", expression)) }
        if let media = options.emulatedMediaType { parts.append(.text("emulatedMediaType", media.rawValue)) }
        if let headers = options.extraHTTPHeaders, let scope = options.extraHTTPHeadersScope ?? page.flatMap(originScope) {
            // Gotenberg sends a header everywhere unless its value ends in "; scope=<regex>";
            // ours go to the page's origin unless the client gave a scope. Uploaded HTML has
            // no origin: without a scope its headers go nowhere, as they do locally.
            json("extraHttpHeaders", headers.mapValues { "\(gotenbergValue($0));scope=\(scope)" })
        }
        if let cookies = options.cookies {
            // Gotenberg wants a domain on every cookie: ours default to the page's host.
            let host = page.flatMap { URLComponents(string: $0)?.host }
            let mapped: [[String: Any]] = cookies.compactMap { cookie in
                guard let domain = cookie.domain ?? host else { return nil }
                var fields: [String: Any] = ["name": cookie.name, "value": cookie.value, "domain": domain, "path": cookie.path ?? "/"]
                if let secure = cookie.secure { fields["secure"] = secure }
                if let httpOnly = cookie.httpOnly { fields["httpOnly"] = httpOnly }
                if let sameSite = cookie.sameSite { fields["sameSite"] = sameSite.rawValue }
                return fields
            }
            if !mapped.isEmpty { json("cookies", mapped) }
        }
        if let userAgent = options.userAgent { parts.append(.text("userAgent", userAgent)) }
        if let ranges = options.pageRanges { parts.append(.text("nativePageRanges", ranges)) }
        if let scale = options.scale { parts.append(.text("scale", inches(scale))) }
        flag("preferCssPageSize", options.preferCSSPageSize)
        flag("singlePage", options.singlePage)
        flag("generateTaggedPdf", options.generateTaggedPDF)
        flag("generateDocumentOutline", options.generateDocumentOutline)
        flag("omitBackground", options.omitBackground)
        json("failOnHttpStatusCodes", options.failOnHTTPStatusCodes)
        json("failOnResourceHttpStatusCodes", options.failOnResourceHTTPStatusCodes)
        json("ignoreResourceHttpStatusDomains", options.ignoreResourceHTTPStatusDomains)
        json("emulatedMediaFeatures", options.emulatedMediaFeatures)
        flag("failOnResourceLoadingFailed", options.failOnResourceLoadingFailed)
        flag("failOnConsoleExceptions", options.failOnConsoleExceptions)
        // Its templates are files named header.html and footer.html among the `files`.
        for (template, filename) in [(options.headerHTML, "header.html"), (options.footerHTML, "footer.html")] {
            if let template {
                parts.append(
                    MultipartPart(name: "files", value: .fileContent(bytes: Array(template.utf8), filename: filename, contentType: "text/html"))
                )
            }
        }
        return parts
    }

    /// Gotenberg splits a header's value at every `;` to find its `scope=`, drops empty pieces
    /// and joins the rest with `"; "`. A value whose every `;` is followed by a space (`text/html;
    /// q=0.9`) survives that when sent with those spaces taken out; any other (`a;b`, a piece
    /// that starts with "scope", a scope with a `;`) would reach the page altered, so the job is
    /// refused, naming the header, rather than sending something else than was asked.
    static func checkHeaders(_ options: BrowserOptions) throws(JobFailure) {
        guard let headers = options.extraHTTPHeaders else { return }
        if let scope = options.extraHTTPHeadersScope, scope.contains(";") {
            throw JobFailure(
                .rejected,
                code: "unsupported_option",
                "extra_http_headers_scope contains ';', which Gotenberg reads as the end of the scope; write the pattern without it, or convert locally"
            )
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) where gotenbergSplit(value) == nil {
            throw JobFailure(
                .rejected,
                code: "unsupported_option",
                "extra_http_headers['\(name)']: Gotenberg would change this value (it splits values at ';' and rejoins them with \"; \"); put one space after every ';', or convert locally"
            )
        }
    }

    /// What to send so Gotenberg's split and join give `value` back; nil when nothing does.
    static func gotenbergSplit(_ value: String) -> String? {
        let pieces = value.split(separator: ";", omittingEmptySubsequences: false)
        guard pieces.count > 1 else { return value.lowercased().trimmingCharacters(in: .whitespaces).hasPrefix("scope") ? nil : value }
        var sent: [Substring] = [pieces[0]]
        for piece in pieces.dropFirst() {
            guard piece.hasPrefix(" "), piece.count > 1 else { return nil }
            sent.append(piece.dropFirst())
        }
        guard !sent[0].isEmpty, !sent.contains(where: { $0.lowercased().trimmingCharacters(in: .whitespaces).hasPrefix("scope") }) else {
            return nil
        }
        return sent.joined(separator: ";")
    }

    private static func gotenbergValue(_ value: String) -> String { gotenbergSplit(value) ?? value }

    /// The options LibreOffice honours as Gotenberg 8's LibreOffice form fields; only what is
    /// set is sent, so Gotenberg's defaults stand for the rest. The password goes as its
    /// `password` field: over the request to Gotenberg, never into a message of ours.
    static func libreOfficeOptions(_ options: ConversionOptions, password: String?) -> [MultipartPart] {
        var parts: [MultipartPart] = []
        func flag(_ name: String, _ value: Bool?) { if let value { parts.append(.text(name, String(value))) } }
        let office = options.office
        if let password, !password.isEmpty { parts.append(.text("password", password)) }
        flag("landscape", options.landscape)
        if let ranges = options.browser.pageRanges { parts.append(.text("nativePageRanges", LibreOfficeExport.pageRange(ranges))) }
        flag("exportFormFields", office.exportFormFields)
        flag("exportBookmarks", office.exportBookmarks)
        flag("exportNotes", office.exportNotes)
        flag("exportNotesPages", office.exportNotesPages)
        flag("losslessImageCompression", office.losslessImageCompression)
        if let quality = office.quality { parts.append(.text("quality", String(quality))) }
        // Gotenberg ignores a resolution unless the reduction is asked for; ours implies it.
        flag("reduceImageResolution", office.reduceImageResolution ?? (office.maxImageResolution != nil ? true : nil))
        if let resolution = office.maxImageResolution { parts.append(.text("maxImageResolution", String(resolution))) }
        flag("singlePageSheets", office.singlePageSheets)
        if let pdfa = office.pdfa { parts.append(.text("pdfa", pdfa.rawValue)) }
        flag("pdfua", office.pdfua)
        return parts
    }

    /// A regular expression (Gotenberg's regexp2 reads it as .NET would) matching the URLs of
    /// `page`'s origin: its scheme, host and port, then a path, query, fragment or the end.
    static func originScope(_ page: String) -> String? {
        guard let components = URLComponents(string: page), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased()
        else { return nil }
        let defaultPort = ["http": 80, "https": 443][scheme]
        // Chromium writes a default port out of the URL; any other stays.
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        // Only the metacharacters are escaped: regexp2 and ICU disagree on escaping anything else.
        let literal = "\(scheme)://\(host)\(port)".map { #"\^$.|?*+()[]{}"#.contains($0) ? "\\\($0)" : "\($0)" }.joined()
        return "^" + literal + "([/?#]|$)"
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
