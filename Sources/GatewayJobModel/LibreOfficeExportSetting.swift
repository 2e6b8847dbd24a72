/// LibreOffice's own PDF export settings (its `FilterData`, by LibreOffice's names) that a job may
/// set beyond the typed office options: the viewer's initial state, notes, empty pages, a native
/// watermark… — every one Gotenberg's LibreOffice route takes, so its fields reach LibreOffice
/// (`options.libreoffice_export` on `/v1`, Gotenberg's own field names at its door). Each name
/// is checked against this table, with its type and range, so a typo is refused, not ignored.
public struct LibreOfficeExportSetting: Sendable {
    public enum Kind: Sendable {
        case flag
        /// A whole number among these values, or in this range.
        case number(ClosedRange<Int>)
        case choice([Int])
        case text
    }

    /// LibreOffice's name: `IsSkipEmptyPages`.
    public var name: String
    /// Gotenberg's form field for it: `skipEmptyPages`.
    public var gotenbergField: String
    public var kind: Kind

    /// Every setting a job may give, in Gotenberg's order.
    public static let all: [LibreOfficeExportSetting] = [
        .init(name: "AllowDuplicateFieldNames", gotenbergField: "allowDuplicateFieldNames", kind: .flag),
        .init(name: "ExportBookmarksToPDFDestination", gotenbergField: "exportBookmarksToPdfDestination", kind: .flag),
        .init(name: "ExportPlaceholders", gotenbergField: "exportPlaceholders", kind: .flag),
        .init(name: "ExportOnlyNotesPages", gotenbergField: "exportOnlyNotesPages", kind: .flag),
        .init(name: "ExportNotesInMargin", gotenbergField: "exportNotesInMargin", kind: .flag),
        .init(name: "ConvertOOoTargetToPDFTarget", gotenbergField: "convertOooTargetToPdfTarget", kind: .flag),
        .init(name: "ExportLinksRelativeFsys", gotenbergField: "exportLinksRelativeFsys", kind: .flag),
        .init(name: "ExportHiddenSlides", gotenbergField: "exportHiddenSlides", kind: .flag),
        .init(name: "IsSkipEmptyPages", gotenbergField: "skipEmptyPages", kind: .flag),
        .init(name: "IsAddStream", gotenbergField: "addOriginalDocumentAsStream", kind: .flag),
        .init(name: "InitialView", gotenbergField: "initialView", kind: .choice([0, 1, 2])),
        .init(name: "InitialPage", gotenbergField: "initialPage", kind: .number(1...99_999_999)),
        .init(name: "Magnification", gotenbergField: "magnification", kind: .choice([0, 1, 2, 3, 4])),
        .init(name: "Zoom", gotenbergField: "zoom", kind: .number(1...6400)),
        .init(name: "PageLayout", gotenbergField: "pageLayout", kind: .choice([0, 1, 2, 3])),
        .init(name: "FirstPageOnLeft", gotenbergField: "firstPageOnLeft", kind: .flag),
        .init(name: "ResizeWindowToInitialPage", gotenbergField: "resizeWindowToInitialPage", kind: .flag),
        .init(name: "CenterWindow", gotenbergField: "centerWindow", kind: .flag),
        .init(name: "OpenInFullScreenMode", gotenbergField: "openInFullScreenMode", kind: .flag),
        .init(name: "DisplayPDFDocumentTitle", gotenbergField: "displayPDFDocumentTitle", kind: .flag),
        .init(name: "HideViewerMenubar", gotenbergField: "hideViewerMenubar", kind: .flag),
        .init(name: "HideViewerToolbar", gotenbergField: "hideViewerToolbar", kind: .flag),
        .init(name: "HideViewerWindowControls", gotenbergField: "hideViewerWindowControls", kind: .flag),
        .init(name: "UseTransitionEffects", gotenbergField: "useTransitionEffects", kind: .flag),
        .init(name: "OpenBookmarkLevels", gotenbergField: "openBookmarkLevels", kind: .choice([-1] + Array(1...10))),
        .init(name: "Watermark", gotenbergField: "nativeWatermarkText", kind: .text),
        .init(name: "WatermarkColor", gotenbergField: "nativeWatermarkColor", kind: .number(0...0xFF_FFFF)),
        .init(name: "WatermarkFontHeight", gotenbergField: "nativeWatermarkFontHeight", kind: .number(1...1000)),
        .init(name: "WatermarkRotateAngle", gotenbergField: "nativeWatermarkRotateAngle", kind: .number(-3600...3600)),
        .init(name: "WatermarkFontName", gotenbergField: "nativeWatermarkFontName", kind: .text),
        .init(name: "TiledWatermark", gotenbergField: "nativeTiledWatermarkText", kind: .text),
    ]

    public static func named(_ name: String) -> LibreOfficeExportSetting? { all.first { $0.name == name } }

    /// Why `value` is not one this setting takes, or nil.
    public func problem(with value: OfficeExportValue) -> String? {
        switch (kind, value) {
        case (.flag, .flag): return nil
        case (.text, .text(let text)):
            return text.count > 500 || text.contains(where: { $0.isNewline || $0 == "\0" }) ? "must be one line of at most 500 characters" : nil
        case (.number(let range), .number(let number)):
            return range.contains(number) ? nil : "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(number)"
        case (.choice(let values), .number(let number)):
            return values.contains(number) ? nil : "must be one of \(values.map(String.init).joined(separator: ", ")), not \(number)"
        case (.flag, _): return "must be true or false"
        case (.text, _): return "must be text"
        case (.number, _), (.choice, _): return "must be a whole number"
        }
    }
}

/// A LibreOffice export setting's value, as JSON gives it.
public enum OfficeExportValue: Sendable, Equatable, Codable {
    case flag(Bool)
    case number(Int)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let number = try? container.decode(Double.self) {
            guard let whole = Int(exactly: number) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) is not a whole number")
            }
            self = .number(whole)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .flag(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }
}
