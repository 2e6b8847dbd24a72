/// A family a document asks for that is not installed here, and the family drawn instead: what
/// a job's `warnings` and Gotenberg's `Pdfgate-Warning` say, so a user knows before reading
/// the PDF why a line may break elsewhere, and what to add with `--fonts`.
public struct FontSubstitution: Sendable, Equatable {
    /// The family the document asks for.
    public let family: String
    /// The family drawn instead.
    public let drawnWith: String
    /// Whether the two have the same glyph widths (Calibri and Carlito).
    public let metricCompatible: Bool

    public init(family: String, drawnWith: String, metricCompatible: Bool) {
        self.family = family
        self.drawnWith = drawnWith
        self.metricCompatible = metricCompatible
    }

    /// The job's warning, one sentence.
    public var warning: String {
        metricCompatible
            ? "the font \(family) is not installed here; it was drawn with \(drawnWith), which has the same widths"
            : "the font \(family) is not installed here; it was drawn with \(drawnWith), whose widths differ, so lines may break "
                + "elsewhere (add the font with --fonts)"
    }
}

extension FontCatalog {
    /// The families `document` asks for that are drawn with another, each once. `installed`
    /// holds the installed families, lowercased (`families()`, asked once per font change). A
    /// stack's first family decides: missing, the first of its fallbacks that is installed, or
    /// its alias, draws it; else fontconfig's choice for it.
    public func substitutions(in document: DocumentFonts, installed: Set<String>) async -> [FontSubstitution] {
        func available(_ family: String) -> Bool {
            installed.contains(family.lowercased()) || document.provided.contains(family.lowercased())
        }
        var found: [FontSubstitution] = []
        for stack in document.stacks {
            guard let first = stack.first, !available(first), !found.contains(where: { $0.family == first }) else { continue }
            if let alias = OfficeFontAliases.substitute(for: first), available(alias.substitute) {
                found.append(FontSubstitution(family: first, drawnWith: alias.substitute, metricCompatible: alias.metricCompatible))
            } else if let fallback = stack.dropFirst().first(where: available) {
                found.append(FontSubstitution(family: first, drawnWith: fallback, metricCompatible: false))
            } else if let fallback = stack.dropFirst().compactMap(OfficeFontAliases.substitute(for:)).first(where: { available($0.substitute) }) {
                found.append(FontSubstitution(family: first, drawnWith: fallback.substitute, metricCompatible: false))
            } else if let drawn = try? await match(first), !drawn.isEmpty {
                found.append(FontSubstitution(family: first, drawnWith: drawn, metricCompatible: false))
            }
        }
        return found
    }
}
