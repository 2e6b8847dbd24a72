/// What `GET /v1/fonts` and `pdfgate fonts --json` answer: the families the converters draw
/// with, and the families documents ask for that are drawn with another.
public struct FontList: Sendable, Codable, Equatable {
    /// One family the gateway draws with another.
    public struct Substitute: Sendable, Codable, Equatable {
        /// The family a document asks for (Calibri, MS Mincho…).
        public let family: String
        /// The family drawn instead.
        public let substitute: String
        /// Whether the substitute has the same glyph widths, so lines and pages break alike.
        public let metricCompatible: Bool
        /// Whether the substitute is installed here (else fontconfig's own fallback draws it).
        public let installed: Bool

        enum CodingKeys: String, CodingKey {
            case family, substitute, installed
            case metricCompatible = "metric_compatible"
        }
    }

    public let families: [FontFamily]
    public let substitutes: [Substitute]

    /// The catalog's families and the aliases, each marked installed or not; a family the
    /// operator's folder provides is not substituted (the folder wins: it comes first).
    public init(families: [FontFamily]) {
        self.families = families
        let installed = Set(families.map { $0.family.lowercased() })
        substitutes = OfficeFontAliases.all.filter { !installed.contains($0.family.lowercased()) }.map {
            Substitute(
                family: $0.family,
                substitute: $0.substitute,
                metricCompatible: $0.metricCompatible,
                installed: installed.contains($0.substitute.lowercased())
            )
        }
    }
}

extension FontCatalog {
    /// The catalog as `GET /v1/fonts` answers it.
    public func list() async throws(FontCatalogError) -> FontList {
        FontList(families: try await families())
    }
}
