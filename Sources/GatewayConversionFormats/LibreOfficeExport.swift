import Foundation
import GatewayJobModel

/// A job's options as LibreOffice's PDF export settings (the `FilterData` of `writer_pdf_Export`
/// and its Calc, Impress and Draw siblings, which read the same names), with the values
/// Gotenberg 8 sends for them. The warm UNO worker gets them over its JSON protocol; the cold
/// `soffice --convert-to` gets them as LibreOffice 7.4's JSON filter options.
package enum LibreOfficeExport {
    /// One setting's value, typed as UNO wants it.
    package enum Value: Sendable, Equatable, Encodable {
        case bool(Bool)
        case int(Int)
        case string(String)

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }

        /// The type name LibreOffice's JSON filter options use.
        var unoType: String {
            switch self {
            case .bool: "boolean"
            case .int: "long"
            case .string: "string"
            }
        }

        var text: String {
            switch self {
            case .bool(let value): String(value)
            case .int(let value): String(value)
            case .string(let value): value
            }
        }
    }

    /// The settings for `options`, in a fixed order; empty when nothing is asked for (LibreOffice's
    /// defaults then apply).
    package static func filterData(for options: ConversionOptions) -> [(name: String, value: Value)] {
        var data: [(name: String, value: Value)] = []
        func flag(_ name: String, _ value: Bool?) { if let value { data.append((name, .bool(value))) } }
        let office = options.office
        if let ranges = options.browser.pageRanges { data.append(("PageRange", .string(pageRange(ranges)))) }
        flag("ExportFormFields", office.exportFormFields)
        flag("ExportBookmarks", office.exportBookmarks)
        flag("ExportNotes", office.exportNotes)
        flag("ExportNotesPages", office.exportNotesPages)
        flag("UseLosslessCompression", office.losslessImageCompression)
        if let quality = office.quality { data.append(("Quality", .int(quality))) }
        // A resolution alone asks for the reduction: LibreOffice would ignore it otherwise.
        flag("ReduceImageResolution", office.reduceImageResolution ?? (office.maxImageResolution != nil ? true : nil))
        if let resolution = office.maxImageResolution { data.append(("MaxImageResolution", .int(resolution))) }
        flag("SinglePageSheets", office.singlePageSheets)
        for (name, value) in (office.libreOfficeExport ?? [:]).sorted(by: { $0.key < $1.key }) {
            switch value {
            case .flag(let flag): data.append((name, .bool(flag)))
            case .number(let number): data.append((name, .int(number)))
            case .text(let text): data.append((name, .string(text)))
            }
        }
        var embedStandardFonts = false
        if let pdfa = office.pdfa {
            data.append(("SelectPdfVersion", .int(pdfa.part)))
            embedStandardFonts = true
        }
        if office.pdfua == true {
            // What Gotenberg sends with it: PDF/UA needs the structure tags and readable text.
            data += [
                ("PDFUACompliance", .bool(true)), ("UseTaggedPDF", .bool(true)), ("EnableTextAccessForAccessibilityTools", .bool(true)),
            ]
            embedStandardFonts = true
        }
        // PDF/A and PDF/UA forbid fonts that are not embedded, the standard 14 included.
        if embedStandardFonts { data.append(("EmbedStandardFonts", .bool(true))) }
        return data
    }

    /// A checked `page_ranges` text in the plainest form LibreOffice reads: `1-3,5,8-`, no
    /// spaces, an open start written as 1.
    package static func pageRange(_ text: String) -> String {
        guard let ranges = BrowserOptions.pageRanges(text) else { return text }
        return ranges.map { range in
            guard let last = range.last else { return "\(range.first)-" }
            return last == range.first ? "\(last)" : "\(range.first)-\(last)"
        }.joined(separator: ",")
    }

    /// `soffice --convert-to`'s target: plain `pdf`, or `pdf:writer_pdf_Export:{json}` with the
    /// settings. LibreOffice applies the Writer filter's name to spreadsheets and presentations
    /// too (checked on 7.4 with .xls and .pptx); `pdfua` names Draw's, for a PDF Draw imported.
    package static func convertTo(for options: ConversionOptions, filter: String = "writer_pdf_Export") -> String {
        let data = filterData(for: options)
        guard !data.isEmpty else { return "pdf" }
        var object: [String: [String: String]] = [:]
        for (name, value) in data { object[name] = ["type": value.unoType, "value": value.text] }
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return "pdf:\(filter):" + String(decoding: json, as: UTF8.self)
    }
}
