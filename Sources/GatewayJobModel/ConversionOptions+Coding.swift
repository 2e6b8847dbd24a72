import Foundation

/// The wire form of `ConversionOptions`: one flat object of snake_case keys.
///
/// Two readers share it. A client's object (a create's `options`, a one-shot's fields, the CLI's
/// `--option`) is read strictly — an unknown key or a value of the wrong type is refused with an
/// `OptionsError` naming the key and what it takes — by setting `strictDecoding` in the
/// decoder's `userInfo`. A stored job spec is read leniently: it was checked when it was
/// created, and a stored spec that lacks a key still decodes (the key is nil).
extension ConversionOptions: Codable {
    /// Set to `true` in a decoder's `userInfo` to read a client's options strictly.
    public static let strictDecoding = CodingUserInfoKey(rawValue: "pdfgate.conversionOptions.strict")!

    /// How a key is written as a text field (a one-shot create's query or form part, a CLI
    /// `--option key=value`), and what it accepts, for messages.
    public enum FieldKind: Sendable {
        case number, flag, text
        /// JSON text: an object or an array.
        case json
    }

    /// One key of the `options` object.
    public struct Field: Sendable {
        public var name: String
        public var kind: FieldKind
        /// What the key takes, as a phrase: "a number from 0.1 to 2".
        public var accepts: String
    }

    /// Every key a client may send in `options`, in the order the documentation lists them.
    public static let fields: [Field] = [
        Field(name: "paper_width", kind: .number, accepts: "a number of inches above 0 (A4: 8.27)"),
        Field(name: "paper_height", kind: .number, accepts: "a number of inches above 0 (A4: 11.69)"),
        Field(name: "landscape", kind: .flag, accepts: "true or false"),
        Field(name: "margin", kind: .number, accepts: "a number of inches, 0 or more"),
        Field(name: "margin_top", kind: .number, accepts: "a number of inches, 0 or more"),
        Field(name: "margin_bottom", kind: .number, accepts: "a number of inches, 0 or more"),
        Field(name: "margin_left", kind: .number, accepts: "a number of inches, 0 or more"),
        Field(name: "margin_right", kind: .number, accepts: "a number of inches, 0 or more"),
        Field(name: "print_background", kind: .flag, accepts: "true or false"),
        Field(name: "wait_delay", kind: .number, accepts: "a number of seconds from 0 to 3600"),
        Field(name: "wait_for_selector", kind: .text, accepts: "a CSS selector such as \"#ready\""),
        Field(name: "wait_for_expression", kind: .text, accepts: "a JavaScript expression such as \"window.ready === true\""),
        Field(name: "emulated_media_type", kind: .text, accepts: "\"screen\" or \"print\""),
        Field(
            name: "emulated_media_features",
            kind: .json,
            accepts: "an array of {name, value} objects such as {\"name\": \"prefers-color-scheme\", \"value\": \"dark\"}"
        ),
        Field(name: "javascript", kind: .flag, accepts: "true or false (false: the page's scripts do not run)"),
        Field(name: "extra_http_headers", kind: .json, accepts: "an object of header names to text values"),
        Field(name: "extra_http_headers_scope", kind: .text, accepts: "a regular expression over request URLs"),
        Field(
            name: "cookies",
            kind: .json,
            accepts: "an array of {name, value, domain?, path?, secure?, http_only?, same_site?} objects"
        ),
        Field(name: "user_agent", kind: .text, accepts: "text without line breaks"),
        Field(name: "page_ranges", kind: .text, accepts: "page numbers and ranges such as \"1-3,5\""),
        Field(name: "scale", kind: .number, accepts: "a number from 0.1 to 2"),
        Field(name: "prefer_css_page_size", kind: .flag, accepts: "true or false"),
        Field(name: "single_page", kind: .flag, accepts: "true or false"),
        Field(name: "header_html", kind: .text, accepts: "an HTML template"),
        Field(name: "footer_html", kind: .text, accepts: "an HTML template"),
        Field(name: "generate_tagged_pdf", kind: .flag, accepts: "true or false"),
        Field(name: "generate_document_outline", kind: .flag, accepts: "true or false"),
        Field(name: "omit_background", kind: .flag, accepts: "true or false"),
        Field(name: "fail_on_http_status_codes", kind: .json, accepts: "an array of HTTP statuses (100–599; 499 means any 4xx, 599 any 5xx)"),
        Field(
            name: "fail_on_resource_http_status_codes",
            kind: .json,
            accepts: "an array of HTTP statuses (100–599; 499 means any 4xx, 599 any 5xx)"
        ),
        Field(name: "ignore_resource_http_status_domains", kind: .json, accepts: "an array of domains such as [\"sentry-cdn.com\"]"),
        Field(name: "fail_on_resource_loading_failed", kind: .flag, accepts: "true or false"),
        Field(name: "fail_on_console_exceptions", kind: .flag, accepts: "true or false"),
        Field(name: "export_form_fields", kind: .flag, accepts: "true or false"),
        Field(name: "export_bookmarks", kind: .flag, accepts: "true or false"),
        Field(name: "export_notes", kind: .flag, accepts: "true or false"),
        Field(name: "export_notes_pages", kind: .flag, accepts: "true or false"),
        Field(name: "lossless_image_compression", kind: .flag, accepts: "true or false"),
        Field(name: "quality", kind: .number, accepts: "a whole number from 1 to 100 (JPEG quality)"),
        Field(name: "reduce_image_resolution", kind: .flag, accepts: "true or false"),
        Field(name: "max_image_resolution", kind: .number, accepts: "one of 75, 150, 300, 600, 1200 (DPI)"),
        Field(name: "single_page_sheets", kind: .flag, accepts: "true or false"),
        Field(name: "pdfa", kind: .text, accepts: "\"PDF/A-1b\", \"PDF/A-2b\" or \"PDF/A-3b\""),
        Field(name: "pdfua", kind: .flag, accepts: "true or false"),
        Field(
            name: "libreoffice_export",
            kind: .json,
            accepts: "an object of LibreOffice's PDF export settings by its names, e.g. {\"IsSkipEmptyPages\": true, \"InitialView\": 1}"
        ),
        Field(name: "deskew", kind: .flag, accepts: "true or false"),
        Field(name: "auto_rotate", kind: .flag, accepts: "true or false"),
        Field(name: "ocr", kind: .flag, accepts: "true or false"),
        Field(name: "ocr_languages", kind: .json, accepts: "an array of Tesseract language codes such as [\"eng\", \"deu\"]"),
    ]

    /// The field named `name`, if it is one.
    public static func field(_ name: String) -> Field? { fields.first { $0.name == name } }

    public init(from decoder: any Decoder) throws {
        let strict = decoder.userInfo[Self.strictDecoding] as? Bool == true
        do {
            if strict {
                try Self.refuseUnknownKeys(in: decoder, allowed: Self.fields.map(\.name), what: "options")
                try Self.refuseNulls(in: decoder, what: "options")
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            paperWidth = try container.decodeIfPresent(Double.self, forKey: .paperWidth)
            paperHeight = try container.decodeIfPresent(Double.self, forKey: .paperHeight)
            landscape = try container.decodeIfPresent(Bool.self, forKey: .landscape)
            margin = try container.decodeIfPresent(Double.self, forKey: .margin)
            marginTop = try container.decodeIfPresent(Double.self, forKey: .marginTop)
            marginBottom = try container.decodeIfPresent(Double.self, forKey: .marginBottom)
            marginLeft = try container.decodeIfPresent(Double.self, forKey: .marginLeft)
            marginRight = try container.decodeIfPresent(Double.self, forKey: .marginRight)
            printBackground = try container.decodeIfPresent(Bool.self, forKey: .printBackground)
            // The same object: the browser's keys sit beside ours on the wire.
            browser = try BrowserOptions(from: decoder)
            office = try OfficeOptions(from: decoder)
            scan = try ScanOptions(from: decoder)
        } catch let error as DecodingError where strict {
            throw OptionsError.wrongType(error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(paperWidth, forKey: .paperWidth)
        try container.encodeIfPresent(paperHeight, forKey: .paperHeight)
        try container.encodeIfPresent(landscape, forKey: .landscape)
        try container.encodeIfPresent(margin, forKey: .margin)
        try container.encodeIfPresent(marginTop, forKey: .marginTop)
        try container.encodeIfPresent(marginBottom, forKey: .marginBottom)
        try container.encodeIfPresent(marginLeft, forKey: .marginLeft)
        try container.encodeIfPresent(marginRight, forKey: .marginRight)
        try container.encodeIfPresent(printBackground, forKey: .printBackground)
        try browser.encode(to: encoder)
        try office.encode(to: encoder)
        try scan.encode(to: encoder)
    }

    /// Throws `OptionsError.unknownKey` for a key of the decoder's object not in `allowed`.
    static func refuseUnknownKeys(in decoder: any Decoder, allowed: [String], what: String) throws {
        let keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        if let unknown = keys.sorted().first(where: { !allowed.contains($0) }) {
            throw OptionsError(
                .unknownKey,
                code: "unknown_option",
                field: unknown,
                "\(what) has no key \"\(unknown)\"; the keys are \(allowed.joined(separator: ", "))"
            )
        }
    }

    /// Throws `OptionsError` for a key whose value is `null`: no option takes one, and reading
    /// it as left out would accept what the schema refuses.
    static func refuseNulls(in decoder: any Decoder, what: String) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        if let key = container.allKeys.map(\.stringValue).sorted().first(where: {
            (try? container.decodeNil(forKey: AnyKey(stringValue: $0))) == true
        }) {
            throw OptionsError(
                .invalid,
                code: "invalid_options",
                field: key,
                "\(what).\(key) is null; leave the key out for its default, or give \(field(key)?.accepts ?? "a value")"
            )
        }
    }

    /// Options as `key=value` words (the CLI's `--option scale=0.8`): every key must be one of
    /// `fields`. Nil when there are none.
    public static func fromKeyValues(_ pairs: [String]) throws(OptionsError) -> ConversionOptions? {
        var fields: [String: String] = [:]
        for pair in pairs {
            let key = String(pair.prefix { $0 != "=" })
            guard key.count < pair.count else {
                throw OptionsError(.invalid, code: "invalid_options", field: key, "'\(pair)' is not key=value, e.g. scale=0.8")
            }
            guard field(key) != nil else {
                let known = Self.fields.map(\.name).joined(separator: ", ")
                throw OptionsError(.unknownKey, code: "unknown_option", field: key, "there is no option \"\(key)\"; the options are \(known)")
            }
            fields[key] = String(pair.dropFirst(key.count + 1))
        }
        return try fromTextFields(fields)
    }

    /// A client's options from JSON text, read strictly.
    public static func strictlyDecoded(from json: Data) throws(OptionsError) -> ConversionOptions {
        let decoder = JSONDecoder()
        decoder.userInfo[strictDecoding] = true
        do {
            return try decoder.decode(ConversionOptions.self, from: json)
        } catch let error as OptionsError {
            throw error
        } catch {
            throw OptionsError(.invalid, code: "invalid_options", field: nil, "options must be a JSON object such as {\"scale\": 0.8}: \(error)")
        }
    }

    /// Options given as text fields, as a one-shot create and the CLI take them: an `options`
    /// field holding the JSON object, and any key as a field of its own (`scale=0.8`), which
    /// wins over the object's. Nil when none is set. Fields that are no option are ignored
    /// (they are the create's own); the object's keys are read strictly.
    public static func fromTextFields(_ fields: [String: String]) throws(OptionsError) -> ConversionOptions? {
        var object: [String: Any] = [:]
        if let text = fields["options"] {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw OptionsError(
                    .invalid,
                    code: "invalid_options",
                    field: "options",
                    "options must be a JSON object such as {\"paper_width\": 8.27, \"landscape\": true}"
                )
            }
            object = parsed
        }
        for field in Self.fields {
            guard let text = fields[field.name] else { continue }
            object[field.name] = try value(of: text, for: field)
        }
        guard !object.isEmpty else { return nil }
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object)
        } catch {
            throw OptionsError(.invalid, code: "invalid_options", field: nil, "options could not be read: \(error)")
        }
        let options = try strictlyDecoded(from: data)
        return options == ConversionOptions() ? nil : options
    }

    private static func value(of text: String, for field: Field) throws(OptionsError) -> Any {
        let refusal = OptionsError(.invalid, code: "invalid_options", field: field.name, "\(field.name) '\(text)' is not \(field.accepts)")
        switch field.kind {
        case .text:
            return text
        case .number:
            // A whole number stays one, so `quality=90` reads as the integer it must be.
            if let whole = Int(text) { return whole }
            guard let number = Double(text), number.isFinite else { throw refusal }
            return number
        case .flag:
            guard let flag = WireFlag.parse(text) else { throw refusal }
            return flag
        case .json:
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) else { throw refusal }
            return parsed
        }
    }
}

extension BrowserOptions {
    public init(from decoder: any Decoder) throws {
        // Unknown keys were refused by `ConversionOptions`, which shares this object.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        waitDelay = try container.decodeIfPresent(Double.self, forKey: .waitDelay)
        waitForSelector = try container.decodeIfPresent(String.self, forKey: .waitForSelector)
        waitForExpression = try container.decodeIfPresent(String.self, forKey: .waitForExpression)
        emulatedMediaType = try container.decodeIfPresent(MediaType.self, forKey: .emulatedMediaType)
        emulatedMediaFeatures = try container.decodeIfPresent([MediaFeature].self, forKey: .emulatedMediaFeatures)
        javaScript = try container.decodeIfPresent(Bool.self, forKey: .javaScript)
        extraHTTPHeaders = try container.decodeIfPresent([String: String].self, forKey: .extraHTTPHeaders)
        extraHTTPHeadersScope = try container.decodeIfPresent(String.self, forKey: .extraHTTPHeadersScope)
        cookies = try container.decodeIfPresent([Cookie].self, forKey: .cookies)
        userAgent = try container.decodeIfPresent(String.self, forKey: .userAgent)
        pageRanges = try container.decodeIfPresent(String.self, forKey: .pageRanges)
        scale = try container.decodeIfPresent(Double.self, forKey: .scale)
        preferCSSPageSize = try container.decodeIfPresent(Bool.self, forKey: .preferCSSPageSize)
        singlePage = try container.decodeIfPresent(Bool.self, forKey: .singlePage)
        headerHTML = try container.decodeIfPresent(String.self, forKey: .headerHTML)
        footerHTML = try container.decodeIfPresent(String.self, forKey: .footerHTML)
        generateTaggedPDF = try container.decodeIfPresent(Bool.self, forKey: .generateTaggedPDF)
        generateDocumentOutline = try container.decodeIfPresent(Bool.self, forKey: .generateDocumentOutline)
        omitBackground = try container.decodeIfPresent(Bool.self, forKey: .omitBackground)
        failOnHTTPStatusCodes = try container.decodeIfPresent([Int].self, forKey: .failOnHTTPStatusCodes)
        failOnResourceHTTPStatusCodes = try container.decodeIfPresent([Int].self, forKey: .failOnResourceHTTPStatusCodes)
        ignoreResourceHTTPStatusDomains = try container.decodeIfPresent([String].self, forKey: .ignoreResourceHTTPStatusDomains)
        failOnResourceLoadingFailed = try container.decodeIfPresent(Bool.self, forKey: .failOnResourceLoadingFailed)
        failOnConsoleExceptions = try container.decodeIfPresent(Bool.self, forKey: .failOnConsoleExceptions)
    }
}

extension OfficeOptions {
    public init(from decoder: any Decoder) throws {
        // Unknown keys were refused by `ConversionOptions`, which shares this object.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        exportFormFields = try container.decodeIfPresent(Bool.self, forKey: .exportFormFields)
        exportBookmarks = try container.decodeIfPresent(Bool.self, forKey: .exportBookmarks)
        exportNotes = try container.decodeIfPresent(Bool.self, forKey: .exportNotes)
        exportNotesPages = try container.decodeIfPresent(Bool.self, forKey: .exportNotesPages)
        losslessImageCompression = try container.decodeIfPresent(Bool.self, forKey: .losslessImageCompression)
        // Read as a number, then checked whole: Foundation reports a fraction where an Int was
        // expected as unreadable JSON, without naming the key.
        func wholeNumber(_ key: CodingKeys) throws -> Int? {
            guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard let whole = Int(exactly: number) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\(number) is not a whole number")
            }
            return whole
        }
        quality = try wholeNumber(.quality)
        reduceImageResolution = try container.decodeIfPresent(Bool.self, forKey: .reduceImageResolution)
        maxImageResolution = try wholeNumber(.maxImageResolution)
        singlePageSheets = try container.decodeIfPresent(Bool.self, forKey: .singlePageSheets)
        pdfa = try container.decodeIfPresent(PDFA.self, forKey: .pdfa)
        pdfua = try container.decodeIfPresent(Bool.self, forKey: .pdfua)
        libreOfficeExport = try container.decodeIfPresent([String: OfficeExportValue].self, forKey: .libreOfficeExport)
    }
}

extension OfficeOptions.PDFA {
    /// Any case, as Gotenberg reads it: `pdf/a-2b` is `PDF/A-2b`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let match = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not one of them"))
        }
        self = match
    }
}

extension BrowserOptions.Cookie {
    public init(from decoder: any Decoder) throws {
        if decoder.userInfo[ConversionOptions.strictDecoding] as? Bool == true {
            try ConversionOptions.refuseUnknownKeys(in: decoder, allowed: CodingKeys.allCases.map(\.rawValue), what: "a cookie")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        value = try container.decode(String.self, forKey: .value)
        domain = try container.decodeIfPresent(String.self, forKey: .domain)
        path = try container.decodeIfPresent(String.self, forKey: .path)
        secure = try container.decodeIfPresent(Bool.self, forKey: .secure)
        httpOnly = try container.decodeIfPresent(Bool.self, forKey: .httpOnly)
        sameSite = try container.decodeIfPresent(SameSite.self, forKey: .sameSite)
    }
}

extension BrowserOptions.Cookie.SameSite {
    /// Any case, as Gotenberg reads it: `lax` is `Lax`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let match = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not Strict, Lax or None"))
        }
        self = match
    }
}

/// Any key of a JSON object, to list them all.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
