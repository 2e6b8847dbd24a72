import Foundation
import GatewayHTTPServing
import GatewayJobModel

/// The fields every Gotenberg route that makes PDFs takes after its work (split, watermarks and
/// stamps, rotate, flatten, optimize, PDF/A, metadata, encryption), read as our `PDFOperation`s:
/// the same qpdf and Ghostscript steps a `/v1` job runs, in the order Gotenberg applies them.
///
/// What our operations cannot do as Gotenberg does (PDF/UA of an existing PDF, pdfcpu's
/// description keys we do not draw) is refused by name where it is read, never dropped: a
/// client that asked for it learns it did not happen.
struct GotenbergPostProcessing {
    var split: PDFOperation.Split?
    /// Gotenberg's `splitUnify`: the pages mode makes one file, not one per page.
    var unify = false
    var operations: [PDFOperation] = []
    /// Gotenberg's `bookmarks`: one outline for every output, or one per input file by name
    /// (`bookmarks/write` only).
    var bookmarks: [PDFBookmark]?
    var bookmarksByFile: [String: [PDFBookmark]] = [:]

    /// Whether the outputs are parts named `<name>_<i>.pdf` (Gotenberg's split naming).
    /// Whether the output is split, into parts or unified into one.
    var splits: Bool { split != nil }

    var makesParts: Bool {
        switch split {
        case .every, .pages: true
        case .ranges, nil: false
        }
    }

    /// Every operation, the split first so the rest applies to each part, as Gotenberg does;
    /// the outline before it, as it names the whole document's pages.
    var all: [PDFOperation] { all(for: nil) }

    /// Every operation for the input file called `filename`, its own outline included.
    func all(for filename: String?) -> [PDFOperation] {
        let outline = (filename.flatMap { bookmarksByFile[$0] } ?? bookmarks).map { [PDFOperation.bookmarks($0)] } ?? []
        // After LibreOffice's PDF/UA re-export, which makes an outline of its own (its page
        // names): the one asked for is written last, as Gotenberg writes it.
        if operations.contains(where: { $0.name == "pdfua" }) {
            return (split.map { [.split($0)] } ?? []) + operations + outline
        }
        return outline + (split.map { [.split($0)] } ?? []) + operations
    }

    /// What `flatten` and `pdfa` mean on the route: LibreOffice applies PDF/A itself while it
    /// exports (`pdfa` is then its option, not an operation), and Chromium takes no `flatten`.
    struct Route {
        var takesFlatten = true
        var pdfaByOperation = true
        /// `pdfengines/split`: `splitMode` and `splitSpan` are required.
        var requiresSplit = false
        /// `bookmarks/write`: `bookmarks` is required, and may name each input file's outline.
        var writesBookmarks = false
        /// `merge`: `bookmarks` may name each input file's outline, moved to where it lands.
        var mergesOutline = false
    }

    init(_ fields: inout GotenbergFields, files: [MultipartForm.File], route: Route) throws(GotenbergError) {
        readSplit(&fields, required: route.requiresSplit)
        readBookmarks(&fields, route: route)
        try readMarks("watermark", &fields, files: files)
        try readMarks("stamp", &fields, files: files)
        if let angle = Self.rotateAngle(&fields) {
            let pages = fields.string("rotatePages").flatMap { try? PageSelection($0, field: "rotatePages") }
            if let text = fields.string("rotatePages"), pages == nil {
                fields.invalid("rotatePages", text, "wrong value, expected a page range such as '1-3,5'")
            }
            operations.append(.rotate(angle: angle, pages: pages))
        }
        if route.takesFlatten, fields.bool("flatten") == true { operations.append(.flatten) }
        let quality = Self.imageQuality(&fields)
        if fields.bool("optimizeImages") == true { operations.append(.optimize(Self.optimize(quality: quality ?? 80))) }
        let metadata = Self.metadata(&fields)
        let pdfa = try Self.pdfa(fields)
        let invoice = try Self.facturX(&fields, files: files, pdfa: pdfa)
        // Factur-X is PDF/A-3b: Gotenberg's default when no format is asked, and made by
        // Ghostscript even where LibreOffice exports PDF/A itself, as the invoice follows it.
        // PDF/UA of a PDF is LibreOffice's re-export, PDF/A in the same pass; where LibreOffice
        // exports the document itself (`pdfaByOperation` off) it makes both there.
        let pdfua = route.pdfaByOperation && fields.bool("pdfua") == true
        // Metadata before a Ghostscript PDF/A, which keeps it; after LibreOffice's PDF/UA
        // re-export, which would replace it with its own (Producer, Creator) and drop the rest
        // (Copyright, Marked, Trapped), as Gotenberg writes it last. ExifTool's incremental
        // update keeps the tags.
        if let metadata, !pdfua { operations.append(.metadata(metadata)) }
        if let pdfa = invoice != nil ? .a3b : pdfa, route.pdfaByOperation || invoice != nil {
            operations.append(pdfua ? .pdfua(PDFOperation.PDFAPart(pdfa)) : .pdfa(PDFOperation.PDFAPart(pdfa)))
        } else if pdfua {
            operations.append(.pdfua(nil))
        }
        if let metadata, pdfua { operations.append(.metadata(metadata)) }
        // After PDF/A, as Gotenberg embeds: Ghostscript's rewrite would drop them.
        let embeds = try Self.attachments(files, metadata: &fields)
        if !embeds.isEmpty {
            if let pdfa, pdfa != .a3b {
                fields.append("PDF format '\(pdfa.rawValue)' does not support embedded files; only PDF/A-3 variants allow attachments")
            }
            operations.append(.attach(embeds))
        }
        if let invoice { operations.append(.facturX(invoice)) }
        if let encryption = Self.encryption(&fields) {
            if pdfa != nil || invoice != nil { fields.append("PDF/A format is incompatible with encryption") }
            operations.append(.encrypt(encryption))
        }
    }

    // MARK: - Split

    private mutating func readSplit(_ fields: inout GotenbergFields, required: Bool) {
        let mode = fields.string("splitMode")
        let span = fields.string("splitSpan").map { $0.filter { !$0.isWhitespace } }
        unify = fields.bool("splitUnify") ?? false
        if required {
            if mode == nil { fields.append("form field 'splitMode' is required") }
            if span == nil { fields.append("form field 'splitSpan' is required") }
        }
        guard let mode else { return }
        switch mode {
        case "intervals":
            if unify { fields.append("unify is not available for split mode 'intervals'") }
            guard let span else { return }
            guard let every = Int(span) else {
                fields.invalid("splitSpan", span, "strconv.Atoi: parsing \"\(span)\": invalid syntax")
                return
            }
            guard every >= 1 else {
                fields.invalid("splitSpan", span, "value is inferior to 1")
                return
            }
            split = .every(every)
        case "pages":
            guard let span else { return }
            // The engines' own words for the last page, as Gotenberg passes them on: qpdf's
            // `2-z`, pdftk's `2-end`.
            let open = span.split(separator: ",", omittingEmptySubsequences: false).map { part in
                part.hasSuffix("-z") ? String(part.dropLast()) : part.hasSuffix("-end") ? String(part.dropLast(3)) : String(part)
            }
            guard let selection = try? PageSelection(open.joined(separator: ","), field: "splitSpan") else {
                // What no engine could split by is Gotenberg's engine error, not a form one.
                fields.refusal = GotenbergError(
                    .badRequest,
                    "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."
                )
                return
            }
            split = unify ? .ranges([selection]) : .pages(selection)
        default:
            fields.invalid("splitMode", mode, "wrong value, expected either 'intervals' or 'pages'")
        }
    }

    // MARK: - The other fields

    private static func rotateAngle(_ fields: inout GotenbergFields) -> Int? {
        let angle = fields.int("rotateAngle") { [90, 180, 270].contains($0) ? nil : "wrong value, expected 90, 180, or 270" }
        return angle
    }

    static func imageQuality(_ fields: inout GotenbergFields) -> Int? {
        fields.int("imageQuality") { $0 < 1 ? "value is inferior to 1" : $0 > 100 ? "value is superior to 100" : nil }
    }

    /// Gotenberg re-encodes images at a JPEG quality; Ghostscript's presets are the nearest we
    /// have: below 50 for the screen, below 80 an ebook, else for print (its default, 80).
    static func optimize(quality: Int) -> PDFOperation.Optimize {
        PDFOperation.Optimize(images: quality < 50 ? .screen : quality < 80 ? .ebook : .printer, linearize: false)
    }

    /// `pdfa`: the three parts Gotenberg's own engine applies, as LibreOffice names them.
    static func pdfa(_ fields: GotenbergFields) throws(GotenbergError) -> OfficeOptions.PDFA? {
        guard let text = fields.string("pdfa") else { return nil }
        guard let part = OfficeOptions.PDFA(rawValue: text) else { throw unsupportedFormat }
        return part
    }

    static let unsupportedFormat = GotenbergError(
        .badRequest,
        "The requested PDF format is not supported, or no PDF engine could apply it. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."
    )

    /// Gotenberg's `metadata` JSON, for the keys of the document information we write.
    private static func metadata(_ fields: inout GotenbergFields) -> PDFOperation.MetadataUpdate? {
        guard let text = fields.string("metadata") else { return nil }
        guard let tags = try? JSONDecoder().decode([String: MetadataTag].self, from: Data(text.utf8)) else {
            // Only a refusal looks again, to say which it is, in Go's words where it is Go's.
            if let go = GoJSONError.message(for: text, into: .object(goType: "map[string]interface {}")) {
                fields.invalid("metadata", text, "unmarshal metadata: \(go)")
            } else {
                fields.append(
                    "form field 'metadata' has a value of a type ExifTool does not write: give a text, a list of texts, true/false or a number"
                )
            }
            return nil
        }
        // Every key is a tag ExifTool writes, as in Gotenberg: dates keep their offsets, and
        // Copyright, Marked, Trapped… are written too.
        var update = PDFOperation.MetadataUpdate()
        for (key, tag) in tags.sorted(by: { $0.key < $1.key }) {
            // A control character could end ExifTool's argument and start another: Gotenberg's own 400.
            if tag.texts.contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
                fields.refusal = GotenbergError(
                    .badRequest,
                    "The requested metadata could not be written; ensure values are valid and free of control characters."
                )
                continue
            }
            if let problem = tag.problem(name: key, field: "form field 'metadata'") {
                // Gotenberg drops what would act on the file (`System:FileName`) and writes the
                // rest; so do we, and say so.
                if problem.code == "metadata_tag_refused" { GotenbergWarnings.note(problem.message) } else { fields.append(problem.message) }
                continue
            }
            update.tags[key] = tag
        }
        guard update.tags.count <= PDFOperation.MetadataUpdate.maxTags else {
            fields.append("form field 'metadata' has \(update.tags.count) keys; at most \(PDFOperation.MetadataUpdate.maxTags)")
            return nil
        }
        return update.tags.isEmpty ? nil : update
    }

    /// `userPassword`, `ownerPassword` and the `allow*` permissions. Without an owner password
    /// the user's opens with every right, as Gotenberg's qpdf does.
    private static func encryption(_ fields: inout GotenbergFields) -> PDFOperation.Encryption? {
        let user = fields.string("userPassword")
        let owner = fields.string("ownerPassword")
        let permissions: [(String, [PDFOperation.Encryption.Permission])] = [
            ("allowPrinting", [.print]), ("allowCopying", [.copy]), ("allowModifying", [.modify]),
            ("allowAnnotating", [.annotate]), ("allowFillingForms", [.fillForms]), ("allowAssembling", [.assemble]),
        ]
        var allow = Set(PDFOperation.Encryption.Permission.allCases)
        for (field, granted) in permissions where fields.bool(field) == false { allow.subtract(granted) }
        guard user != nil || owner != nil else {
            if allow.count < PDFOperation.Encryption.Permission.allCases.count {
                fields.append("permission restrictions require a 'userPassword' or 'ownerPassword'")
            }
            return nil
        }
        return PDFOperation.Encryption(userPassword: user, ownerPassword: owner ?? user, allow: allow)
    }

    /// Gotenberg's `bookmarks`: a JSON list of `{title, page, children}`, or an object of such
    /// lists by input file name.
    private mutating func readBookmarks(_ fields: inout GotenbergFields, route: Route) {
        guard let text = fields.string("bookmarks") else {
            if route.writesBookmarks { fields.append("form field 'bookmarks' is required") }
            return
        }
        let data = Data(text.utf8)
        do {
            if let list = try? JSONDecoder().decode([PDFBookmark].self, from: data) {
                try PDFBookmark.check(list, field: "bookmarks")
                bookmarks = list
            } else {
                let byFile = try JSONDecoder().decode([String: [PDFBookmark]].self, from: data)
                for (name, list) in byFile { try PDFBookmark.check(list, field: "bookmarks[\(name)]") }
                guard route.writesBookmarks || route.mergesOutline else {
                    fields.append("bookmarks by file name are for /forms/pdfengines/bookmarks/write and merge; send one list here")
                    return
                }
                bookmarksByFile = byFile
            }
        } catch let error as OperationError {
            fields.invalid("bookmarks", text, error.message)
        } catch {
            // Go's own words where Go would refuse the text (not JSON at all), ours otherwise.
            let go = GoJSONError.syntaxError(Array(text.utf8))
            fields.invalid(
                "bookmarks",
                text,
                "unmarshal bookmarks: " + (go ?? "expected a list of {title, page, children} or an object of such lists by file name")
            )
        }
    }

    /// The files of the `embeds` field, attached to every output under their own names.
    static func attachments(_ files: [MultipartForm.File], metadata fields: inout GotenbergFields) throws(GotenbergError) -> [PDFAttachment] {
        let embeds = files.filter { $0.field == "embeds" }
        let described = embedsMetadata(&fields)
        guard !embeds.isEmpty else { return [] }
        do {
            let attached = try embeds.map { file in
                let name = file.filename ?? "attachment"
                var attachment = try PDFAttachment.file(try Self.contents(of: file), name: name, field: "embeds")
                attachment.mimeType = described[name]?.mimeType
                attachment.relationship = described[name]?.relationship
                return attachment
            }
            try PDFAttachment.check(attached, field: "embeds")
            return attached
        } catch let error as OperationError {
            throw GotenbergError(.badRequest, "Invalid form data: \(error.message)")
        } catch let error as GotenbergError {
            throw error
        } catch {
            throw GotenbergError(.internalServerError)
        }
    }

    /// An uploaded part's bytes; a part we wrote and cannot read back is our fault (500).
    static func contents(of file: MultipartForm.File) throws(GotenbergError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file.path))
        } catch {
            throw GotenbergError(.internalServerError)
        }
    }

    /// Gotenberg's `embedsMetadata`: `{"invoice.xml": {"mimeType": "text/xml", "relationship":
    /// "Alternative"}}`, by the embedded file's name. A value Gotenberg would write into the PDF
    /// unchecked is refused here by name, so no PDF claims a relationship the standard lacks.
    static func embedsMetadata(_ fields: inout GotenbergFields) -> [String: (mimeType: String?, relationship: PDFAttachment.Relationship?)] {
        guard let text = fields.string("embedsMetadata") else { return [:] }
        guard let parsed = try? JSONDecoder().decode([String: [String: String]].self, from: Data(text.utf8)) else {
            fields.append(
                "form field 'embedsMetadata' is invalid: give a JSON object of objects by file name, such as {\"a.xml\":{\"mimeType\":\"text/xml\",\"relationship\":\"Data\"}}"
            )
            return [:]
        }
        var described: [String: (mimeType: String?, relationship: PDFAttachment.Relationship?)] = [:]
        for (name, values) in parsed {
            for key in values.keys where key != "mimeType" && key != "relationship" {
                fields.append("form field 'embedsMetadata' is invalid: '\(key)' of '\(name)' is not mimeType or relationship")
            }
            let mimeType = values["mimeType"]
            if let mimeType, let problem = PDFAttachment.mediaTypeProblem(mimeType) {
                fields.append("form field 'embedsMetadata' is invalid: the mimeType of '\(name)', \(problem)")
            }
            let relationship = values["relationship"].flatMap(PDFAttachment.Relationship.init(rawValue:))
            if let text = values["relationship"], relationship == nil {
                let all = PDFAttachment.Relationship.allCases.map(\.rawValue).joined(separator: ", ")
                fields.append("form field 'embedsMetadata' is invalid: the relationship of '\(name)' is '\(text)', not one of \(all)")
            }
            described[name] = (mimeType, relationship)
        }
        return described
    }

    /// Gotenberg's Factur-X fields: the `facturxXml` file and `facturxConformanceLevel` together
    /// (either alone is Gotenberg's 400), `facturxDocumentType` (INVOICE) and `facturxVersion`
    /// (1.0); a PDF/A format asked for must be PDF/A-3.
    static func facturX(_ fields: inout GotenbergFields, files: [MultipartForm.File], pdfa: OfficeOptions.PDFA?) throws(GotenbergError) -> FacturX? {
        let xml = files.first { $0.field == "facturxXml" }
        let levelText = fields.string("facturxConformanceLevel") ?? ""
        let level = FacturX.ConformanceLevel(rawValue: levelText)
        if !levelText.isEmpty, level == nil { fields.invalid("facturxConformanceLevel", levelText, "unsupported conformance level '\(levelText)'") }
        let typeText = fields.string("facturxDocumentType") ?? ""
        let type = typeText.isEmpty ? .invoice : FacturX.DocumentType(rawValue: typeText)
        if type == nil { fields.invalid("facturxDocumentType", typeText, "unsupported document type '\(typeText)'") }
        let version = fields.string("facturxVersion") ?? "1.0"
        if let problem = FacturX.versionProblem(version) { fields.invalid("facturxVersion", version, problem) }
        switch (levelText.isEmpty, xml) {
        case (true, nil): return nil
        case (true, _?):
            fields.append("'facturxConformanceLevel' is required when 'facturxXml' is provided")
            return nil
        case (false, nil):
            fields.append("'facturxXml' file is required when 'facturxConformanceLevel' is set")
            return nil
        case (false, let xml?):
            if let pdfa, pdfa != .a3b {
                fields.append("Factur-X requires a PDF/A-3 variant (PDF/A-3a, PDF/A-3b, or PDF/A-3u), got '\(pdfa.rawValue)'")
            }
            guard let level, let type, FacturX.versionProblem(version) == nil else { return nil }
            do {
                return try FacturX(conformanceLevel: level, documentType: type, version: version, xml: try contents(of: xml), field: "facturxXml")
            } catch let error as OperationError {
                fields.append(error.message)
                return nil
            } catch {
                throw GotenbergError(.internalServerError)
            }
        }
    }
}

extension PDFOperation.PDFAPart {
    init(_ office: OfficeOptions.PDFA) {
        switch office {
        case .a1b: self = .a1b
        case .a2b: self = .a2b
        case .a3b: self = .a3b
        }
    }
}
