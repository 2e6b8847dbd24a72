import Foundation
import GatewayCore

/// Why a client's `options` were refused: a key we do not have, a value of the wrong type or out
/// of range, or two keys that contradict each other. The message names the key and what it takes.
public struct OptionsError: GatewayError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `unknown_option`: a key `options` does not have.
        case unknownKey
        /// `invalid_options`: a value of the wrong type or outside its range.
        case invalid
        /// `conflicting_options`: each value fine, together impossible.
        case conflicting
    }

    public var kind: Kind
    public var code: String
    /// The offending key, e.g. `scale`; nil when the whole object is unreadable.
    public var field: String?
    public var message: String

    public init(_ kind: Kind, code: String, field: String?, _ message: String) {
        self.kind = kind
        self.code = code
        self.field = field
        self.message = message
    }

    static func invalid(_ field: String, _ message: String) -> OptionsError {
        OptionsError(.invalid, code: "invalid_options", field: field, "options.\(field) \(message)")
    }

    /// A decoding error in a client's object, said as "options.scale must be a number from 0.1 to 2".
    static func wrongType(_ error: DecodingError) -> OptionsError {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default:
            path = []
        }
        guard let field = path.lazy.compactMap({ ConversionOptions.field($0.stringValue) }).first else {
            return OptionsError(.invalid, code: "invalid_options", field: nil, "options could not be read: \(error)")
        }
        var detail = ""
        if case .keyNotFound(let key, _) = error { detail = " (\"\(key.stringValue)\" is missing)" }
        if case .dataCorrupted(let context) = error { detail = " (\(context.debugDescription))" }
        return invalid(field.name, "must be \(field.accepts)\(detail)")
    }
}

extension ConversionOptions {
    /// Limits that keep one job's options from becoming a burden: Gotenberg caps headers too.
    public static let maxHeaders = 64
    public static let maxCookies = 64
    public static let maxTemplateBytes = 256 * 1024
    public static let maxScriptBytes = 64 * 1024

    /// Headers a page's requests cannot be given: the network stack owns them (a `Host` or a
    /// length would break the request), and cookies go through `cookies`.
    static let forbiddenHeaders: Set<String> = [
        "host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "expect",
        "proxy-authorization", "proxy-connection", "cookie",
    ]

    /// Refuses values out of range and keys that contradict each other; the type checks happened
    /// while decoding. Every entry point calls it (through `JobIntake.check`).
    public func validate() throws(OptionsError) {
        if let width = paperWidth, !(width > 0 && width.isFinite) {
            throw OptionsError.invalid("paper_width", "must be above 0 inches, not \(width)")
        }
        if let height = paperHeight, !(height > 0 && height.isFinite) {
            throw OptionsError.invalid("paper_height", "must be above 0 inches, not \(height)")
        }
        let margins = [
            ("margin", margin), ("margin_top", marginTop), ("margin_bottom", marginBottom), ("margin_left", marginLeft),
            ("margin_right", marginRight),
        ]
        for case let (name, value?) in margins where !(value >= 0 && value.isFinite) {
            throw OptionsError.invalid(name, "must be 0 or more inches, not \(value)")
        }
        try browser.validate()
        try office.validate()
        try scan.validate()
        // Chromium paints the white it omits only as a printed background.
        if browser.omitBackground == true && printBackground == false {
            throw OptionsError(
                .conflicting,
                code: "conflicting_options",
                field: "omit_background",
                "options.omit_background removes the white behind printed backgrounds, but print_background is false; drop one of them"
            )
        }
    }

    /// Whether Chromium prints backgrounds: as asked, or because `omit_background` needs them.
    public var printsBackground: Bool? { printBackground ?? (browser.omitBackground == true ? true : nil) }

    /// Refuses LibreOffice's options on a job LibreOffice never sees (a web page, uploaded HTML,
    /// an ebook, PDFs), and a scan's options on a job that has no page images: they would be
    /// dropped without a word, and a client asking for `pdfa` on a URL job would get no PDF/A.
    /// Chromium's options on an office job are ignored instead (as Gotenberg does): they cannot
    /// make the result wrong.
    public func checkApplies(to type: JobType, originalFilename: String?) throws(OptionsError) {
        if type != .scanToPDF, let key = scan.setKeys.first { throw scanOptionUnused(key, because: "this is a \(type.rawValue) job") }
        if let key = office.setKeys.first, let what = Self.officeUnused(by: type, originalFilename: originalFilename) {
            throw officeOptionUnused(key, because: what)
        }
    }

    /// The same for a job with several inputs: LibreOffice's options need an office document
    /// among them (they apply to those, as Chromium's apply to the pages), a scan's a page image.
    public func checkApplies(toInputs inputs: [JobInput]) throws(OptionsError) {
        if let key = scan.setKeys.first, !inputs.contains(where: { $0.type == .scanToPDF }) {
            throw scanOptionUnused(key, because: "none of the inputs is a page image")
        }
        if let key = office.setKeys.first, !inputs.contains(where: { Self.officeUnused(by: $0.type, originalFilename: $0.filename) == nil }) {
            throw officeOptionUnused(key, because: "none of the inputs is an office document")
        }
    }

    /// Why LibreOffice never sees a job of `type`; nil when it does.
    private static func officeUnused(by type: JobType, originalFilename: String?) -> String? {
        switch type {
        case .docToPDF:
            let ext = ((originalFilename ?? "") as NSString).pathExtension.lowercased()
            return SourceFormats.html.contains(ext) ? "an uploaded .\(ext) page is printed by Chromium" : nil
        case .urlToPDF: return "a URL_TO_PDF job is printed by Chromium"
        case .screenshot: return "a SCREENSHOT is taken by Chromium"
        case .ebookToPDF: return "an EBOOK_TO_PDF job is converted by Calibre"
        case .pdfToPDF: return "a PDF_TO_PDF job converts nothing"
        case .scanToPDF: return "a SCAN_TO_PDF job embeds its images as they are"
        }
    }

    private func scanOptionUnused(_ key: String, because what: String) -> OptionsError {
        var message = "options.\(key) is an option of scans (SCAN_TO_PDF, page images), but \(what)"
        if key.hasPrefix("ocr") { message += "; to add a text layer to any PDF, add a {\"op\": \"ocr\"} step to operations" }
        return OptionsError(.conflicting, code: "conflicting_options", field: key, message)
    }

    private func officeOptionUnused(_ key: String, because what: String) -> OptionsError {
        var message = "options.\(key) is a LibreOffice option for office documents, but \(what)"
        if office.pdfa != nil { message += "; for PDF/A add a {\"op\": \"pdfa\"} step to operations" }
        return OptionsError(.conflicting, code: "conflicting_options", field: key, message)
    }
}

extension OfficeOptions {
    func validate() throws(OptionsError) {
        if let quality, !(1...100).contains(quality) {
            throw OptionsError.invalid("quality", "must be a whole number from 1 to 100, not \(quality)")
        }
        if let resolution = maxImageResolution, !Self.allowedImageResolutions.contains(resolution) {
            let allowed = Self.allowedImageResolutions.map(String.init).joined(separator: ", ")
            throw OptionsError.invalid("max_image_resolution", "must be one of \(allowed) (DPI), not \(resolution)")
        }
        // LibreOffice writes lossless images without JPEG, so a JPEG quality would be dropped silently.
        if losslessImageCompression == true && quality != nil {
            throw OptionsError(
                .conflicting,
                code: "conflicting_options",
                field: "quality",
                "options.quality is a JPEG quality, but lossless_image_compression keeps images lossless (no JPEG); send one or the other"
            )
        }
        for (name, value) in (libreOfficeExport ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let setting = LibreOfficeExportSetting.named(name) else {
                let names = LibreOfficeExportSetting.all.map(\.name).joined(separator: ", ")
                throw OptionsError.invalid("libreoffice_export", "has no setting '\(name)'; the settings are \(names)")
            }
            // Well formed, but not a value this setting takes: 422, as a contradiction is.
            if let problem = setting.problem(with: value) {
                let message = "options.libreoffice_export.\(name) \(problem)"
                throw OptionsError(.conflicting, code: "invalid_options", field: "libreoffice_export", message)
            }
        }
        if reduceImageResolution == false && maxImageResolution != nil {
            throw OptionsError(
                .conflicting,
                code: "conflicting_options",
                field: "max_image_resolution",
                "options.max_image_resolution reduces images to that resolution, but reduce_image_resolution is false; drop one of them"
            )
        }
    }
}

extension BrowserOptions {
    func validate() throws(OptionsError) {
        if let waitDelay, !(0...3600).contains(waitDelay) {
            throw OptionsError.invalid("wait_delay", "must be from 0 to 3600 seconds, not \(waitDelay)")
        }
        try Self.checkScript(waitForSelector, "wait_for_selector")
        try Self.checkScript(waitForExpression, "wait_for_expression")
        if let headers = extraHTTPHeaders {
            if headers.count > ConversionOptions.maxHeaders {
                throw OptionsError.invalid("extra_http_headers", "may hold at most \(ConversionOptions.maxHeaders) headers, not \(headers.count)")
            }
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                guard Self.isToken(name) else { throw OptionsError.invalid("extra_http_headers", "has \"\(name)\", which is not a header name") }
                if ConversionOptions.forbiddenHeaders.contains(name.lowercased()) {
                    // A well-formed header this request may not carry (422): the browser sets it.
                    throw OptionsError(
                        .conflicting,
                        code: "forbidden_header",
                        field: "extra_http_headers",
                        "options.extra_http_headers cannot set \(name): the browser sets it (cookies go in options.cookies)"
                    )
                }
                guard Self.isFieldValue(value) else {
                    throw OptionsError.invalid("extra_http_headers", "has a line break or control character in \(name)")
                }
            }
        }
        if let scope = extraHTTPHeadersScope {
            if extraHTTPHeaders == nil {
                throw OptionsError(
                    .conflicting,
                    code: "conflicting_options",
                    field: "extra_http_headers_scope",
                    "options.extra_http_headers_scope says where extra_http_headers go, but there are none"
                )
            }
            guard scope.utf8.count <= 1024, (try? NSRegularExpression(pattern: scope)) != nil else {
                throw OptionsError.invalid(
                    "extra_http_headers_scope",
                    "must be a regular expression of at most 1024 bytes, such as \"^https://api\\\\.example\\\\.com/\""
                )
            }
        }
        if let cookies {
            if cookies.count > ConversionOptions.maxCookies {
                throw OptionsError.invalid("cookies", "may hold at most \(ConversionOptions.maxCookies) cookies, not \(cookies.count)")
            }
            for (index, cookie) in cookies.enumerated() {
                guard Self.isToken(cookie.name) else {
                    throw OptionsError.invalid("cookies", "[\(index)] has name \"\(cookie.name)\", which is not a cookie name")
                }
                guard !cookie.value.contains(where: { $0 == ";" || $0.isNewline || $0.unicodeScalars.contains { $0.value < 0x20 } }) else {
                    throw OptionsError.invalid("cookies", "[\(index)] (\(cookie.name)) has a value with ';' or a control character")
                }
                if let domain = cookie.domain, domain.isEmpty || domain.contains(where: { $0 == "/" || $0.isWhitespace }) {
                    throw OptionsError.invalid("cookies", "[\(index)] (\(cookie.name)) has domain \"\(domain)\", which is not a host name")
                }
                if let path = cookie.path, !path.hasPrefix("/") {
                    throw OptionsError.invalid("cookies", "[\(index)] (\(cookie.name)) has a path not starting with /")
                }
            }
        }
        if let userAgent, userAgent.isEmpty || userAgent.utf8.count > 1024 || !Self.isFieldValue(userAgent) {
            throw OptionsError.invalid("user_agent", "must be 1 to 1024 bytes of text without line breaks")
        }
        if let pageRanges {
            guard let ranges = Self.pageRanges(pageRanges, allowingBackwards: true) else {
                throw OptionsError.invalid(
                    "page_ranges",
                    "must be page numbers and ranges from 1, such as \"1-3,5\" or \"2-\", not \"\(pageRanges)\""
                )
            }
            // Well-formed, as the spec's pattern says, but empty: 422, as a backward page range is elsewhere.
            if let backwards = ranges.first(where: { range in range.last.map { $0 < range.first } ?? false }), let last = backwards.last {
                throw OptionsError(
                    .conflicting,
                    code: "invalid_page_range",
                    field: "page_ranges",
                    "options.page_ranges: the range \(backwards.first)-\(last) runs backwards; write it from its first page to its last (\(last)-\(backwards.first))"
                )
            }
        }
        if let scale, !(0.1...2).contains(scale) { throw OptionsError.invalid("scale", "must be from 0.1 to 2, not \(scale)") }
        for (template, name) in [(headerHTML, "header_html"), (footerHTML, "footer_html")] {
            if let template, template.utf8.count > ConversionOptions.maxTemplateBytes {
                throw OptionsError.invalid(name, "may be at most \(ConversionOptions.maxTemplateBytes / 1024) KiB")
            }
        }
        for (codes, name) in [
            (failOnHTTPStatusCodes, "fail_on_http_status_codes"), (failOnResourceHTTPStatusCodes, "fail_on_resource_http_status_codes"),
        ] {
            if let codes, let bad = codes.first(where: { !(100...599).contains($0) }) {
                throw OptionsError.invalid(name, "must hold HTTP statuses from 100 to 599 (499 for any 4xx, 599 for any 5xx), not \(bad)")
            }
        }
        for feature in emulatedMediaFeatures ?? [] {
            // As openapi.yaml says it: code points counted, CR and LF the only line breaks refused.
            guard feature.name.wholeMatch(of: /[a-z][a-z0-9-]{0,63}/) != nil, feature.value.unicodeScalars.count <= 64,
                !feature.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" })
            else {
                throw OptionsError.invalid(
                    "emulated_media_features",
                    "must name CSS media features such as {\"name\": \"prefers-color-scheme\", \"value\": \"dark\"}, not '\(feature.name)'"
                )
            }
        }
        if let domains = ignoreResourceHTTPStatusDomains, domains.count > 100 || domains.contains(where: { $0.unicodeScalars.count > 253 }) {
            throw OptionsError.invalid("ignore_resource_http_status_domains", "may hold at most 100 domains of at most 253 characters")
        }
        if singlePage == true && pageRanges != nil {
            throw OptionsError(
                .conflicting,
                code: "conflicting_options",
                field: "single_page",
                "options.single_page prints everything on one page, so page_ranges cannot pick pages; send one or the other"
            )
        }
    }

    private static func checkScript(_ text: String?, _ name: String) throws(OptionsError) {
        guard let text else { return }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw OptionsError.invalid(name, "must not be empty") }
        if text.utf8.count > ConversionOptions.maxScriptBytes {
            throw OptionsError.invalid(name, "may be at most \(ConversionOptions.maxScriptBytes / 1024) KiB")
        }
    }

    /// An RFC 9110 token: what a header or cookie name may be.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }

    /// Text that can be a header value: no control characters but tab.
    static func isFieldValue(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
    }

    /// The ranges of a `page_ranges` text as (first, last) pages, last nil for "to the end";
    /// nil when it is not one. The syntax is Chromium's: `1-3, 5, 8-`, pages from 1.
    public static func pageRanges(_ text: String, allowingBackwards: Bool = false) -> [(first: Int, last: Int?)]? {
        var ranges: [(first: Int, last: Int?)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            // Spaces and tabs around numbers only, and numbers as openapi.yaml's pattern writes them
            // (1 to 9 digits, no leading zero or sign), so the spec and the server agree.
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            }
            func page(_ text: String) -> Int? {
                guard (1...9).contains(text.count), text.first != "0", text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
                    return nil
                }
                return Int(text)
            }
            switch bounds.count {
            case 1:
                guard let single = page(bounds[0]) else { return nil }
                ranges.append((single, single))
            case 2:
                let first = bounds[0].isEmpty ? 1 : page(bounds[0])
                let last = bounds[1].isEmpty ? nil : page(bounds[1])
                guard let first, bounds[1].isEmpty || last != nil, !(bounds[0].isEmpty && bounds[1].isEmpty) else { return nil }
                if let last, last < first, !allowingBackwards { return nil }
                ranges.append((first, last))
            default:
                return nil
            }
        }
        return ranges.isEmpty ? nil : ranges
    }
}
