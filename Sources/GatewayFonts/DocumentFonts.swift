import Foundation
import ZIPFoundation

/// The font families a document asks for, read from its own markup without a converter: Word's
/// font table, a presentation's typefaces, a workbook's styles, an ODF file's font faces, an RTF
/// font table, CSS `font-family` in HTML and EPUB. What a document carries itself (fonts embedded
/// in a .docx, `@font-face`) is `provided`: the converters draw it, and nothing is substituted.
public struct DocumentFonts: Sendable, Equatable {
    /// Each place a family is asked for: the family first, then the fallbacks its author listed
    /// (CSS stacks; office formats name one family).
    public var stacks: [[String]] = []
    /// Families the document brings with it, lowercased.
    public var provided: Set<String> = []

    public init(stacks: [[String]] = [], provided: Set<String> = []) {
        self.stacks = stacks
        self.provided = provided
    }

    /// What the file at `path` (named `name` by its sender) asks for; nothing for a format that
    /// names no fonts or that cannot be read (a converter will say what is wrong with it).
    public static func read(_ path: String, name: String) -> DocumentFonts {
        let format = (name as NSString).pathExtension.lowercased()
        switch format {
        case "docx", "docm", "dotx", "dotm": return word(path)
        case "pptx", "pptm", "ppsx", "potx": return presentation(path)
        case "xlsx", "xlsm", "xltx": return workbook(path)
        case "odt", "ods", "odp", "odg", "ott", "ots", "otp": return openDocument(path)
        case "rtf": return rtf(text(path))
        case "html", "htm", "xhtml": return css(text(path))
        case "epub", "zip": return packagedPages(path)
        default: return DocumentFonts()
        }
    }

    // MARK: - Formats

    /// Word's font table lists the families the document uses (one with an embedded face,
    /// `w:embedRegular`…, comes with the file); runs and styles name theirs in `w:rFonts`, which
    /// files made by other tools may carry without a table.
    static func word(_ path: String) -> DocumentFonts {
        guard let zip = ZipText(path) else { return DocumentFonts() }
        var fonts = DocumentFonts()
        if let table = zip["word/fontTable.xml"] {
            for font in matches(#"<w:font\b[^>]*\bw:name="([^"]+)"[^>]*?(/>|>(.*?)</w:font>)"#, in: table, groups: [1, 3]) {
                let family = unescaped(font[0])
                if font[1].contains("w:embed") { fonts.provided.insert(family.lowercased()) }
                fonts.ask(family)
            }
        }
        for part in ["word/styles.xml", "word/document.xml"] {
            guard let xml = zip[part] else { continue }
            for attributes in matches(#"<w:rFonts\b([^>]*)>"#, in: xml, groups: [1]) {
                for named in matches(#"\bw:(?:ascii|hAnsi|eastAsia|cs)="([^"]+)""#, in: attributes[0], groups: [1]) { fonts.ask(unescaped(named[0])) }
            }
        }
        return fonts
    }

    /// Typefaces of a presentation's themes, masters, layouts and slides; `+mj-lt` and the like
    /// point at the theme's, read there.
    static func presentation(_ path: String) -> DocumentFonts {
        guard let zip = ZipText(path) else { return DocumentFonts() }
        var fonts = DocumentFonts()
        for entry in zip.names where entry.hasPrefix("ppt/") && entry.hasSuffix(".xml") && !entry.contains("/_rels/") {
            guard let xml = zip[entry] else { continue }
            for face in matches(#"<a:(?:latin|ea|cs)\b[^>]*\btypeface="([^"]*)""#, in: xml, groups: [1]) {
                fonts.ask(unescaped(face[0]))
            }
            if entry == "ppt/presentation.xml" {
                for face in matches(#"<p:embeddedFont>\s*<p:font\b[^>]*\btypeface="([^"]+)""#, in: xml, groups: [1]) {
                    fonts.provided.insert(unescaped(face[0]).lowercased())
                }
            }
        }
        return fonts
    }

    /// A workbook's cell styles name their fonts.
    static func workbook(_ path: String) -> DocumentFonts {
        guard let styles = ZipText(path)?["xl/styles.xml"] else { return DocumentFonts() }
        var fonts = DocumentFonts()
        for name in matches(#"<font\b[^>]*>.*?<name\s+val="([^"]+)".*?</font>"#, in: styles, groups: [1]) { fonts.ask(unescaped(name[0])) }
        return fonts
    }

    /// ODF's font faces, in content and styles; a face with its own source is embedded.
    static func openDocument(_ path: String) -> DocumentFonts {
        guard let zip = ZipText(path) else { return DocumentFonts() }
        var fonts = DocumentFonts()
        for entry in ["styles.xml", "content.xml"] {
            guard let xml = zip[entry] else { continue }
            for face in matches(#"<style:font-face\b[^>]*\bsvg:font-family="([^"]+)"[^>]*?(/>|>(.*?)</style:font-face>)"#, in: xml, groups: [1, 3]) {
                let family = unescaped(face[0]).trimmingCharacters(in: CharacterSet(charactersIn: "'\" "))
                if face[1].contains("font-face-src") { fonts.provided.insert(family.lowercased()) }
                fonts.ask(family)
            }
        }
        return fonts
    }

    /// An RTF font table: `{\f0\froman\fcharset0 Times New Roman;}`, or its alternative name
    /// (`{\*\falt MS Mincho}`) where the name itself is written in a code page (`\'82\'6c…`).
    package static func rtf(_ text: String) -> DocumentFonts {
        guard let start = text.range(of: #"{\fonttbl"#) else { return DocumentFonts() }
        var entries: [String] = []
        var entry = ""
        var depth = 1
        for character in text[start.upperBound...].prefix(64 * 1024) {
            if character == "{" {
                depth += 1
                if depth == 2 {
                    entry = ""
                    continue
                }
            } else if character == "}" {
                depth -= 1
                if depth == 0 { break }  // the table's own end
                if depth == 1 {
                    entries.append(entry)
                    continue
                }
            }
            if depth >= 2 { entry.append(character) }
        }
        var fonts = DocumentFonts()
        for entry in entries {
            let alternative = matches(#"\{\\\*\\falt\s*([^}]*)\}"#, in: entry, groups: [1]).first?[0]
            let plain = entry.replacingOccurrences(of: #"\{[^{}]*\}"#, with: "", options: .regularExpression)
            let name =
                plain.replacingOccurrences(of: #"\\[a-z]+-?[0-9]* ?"#, with: "", options: .regularExpression)
                .split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
            fonts.ask((name.contains("\\'") || name.isEmpty ? alternative ?? "" : name).trimmingCharacters(in: .whitespaces))
        }
        return fonts
    }

    /// CSS in a page: each `font-family` stack, and the families `@font-face` rules bring.
    package static func css(_ text: String) -> DocumentFonts {
        var fonts = DocumentFonts()
        for rule in matches(#"@font-face\s*\{([^}]*)\}"#, in: text, groups: [1]) {
            if let family = matches(#"font-family\s*:\s*([^;]+)"#, in: rule[0], groups: [1]).first {
                fonts.provided.formUnion(stack(family[0]).map { $0.lowercased() })
            }
        }
        let withoutFaces = text.replacingOccurrences(of: #"@font-face\s*\{[^}]*\}"#, with: "", options: .regularExpression)
        for declaration in matches(#"font-family\s*:\s*([^;}"]+|"[^"]*"[^;}"]*)"#, in: withoutFaces, groups: [1]) {
            let families = stack(declaration[0])
            if !families.isEmpty { fonts.stacks.append(families) }
        }
        return fonts
    }

    /// The stylesheets and pages of an EPUB or of an HTML bundle (a page with its files, zipped).
    static func packagedPages(_ path: String) -> DocumentFonts {
        guard let zip = ZipText(path) else { return DocumentFonts() }
        var fonts = DocumentFonts()
        for entry in zip.names where [".css", ".xhtml", ".html", ".htm"].contains(where: entry.lowercased().hasSuffix) {
            guard let text = zip[entry] else { continue }
            let found = css(text)
            fonts.stacks += found.stacks
            fonts.provided.formUnion(found.provided)
        }
        return fonts
    }

    // MARK: - Helpers

    /// A family asked for alone, once.
    mutating func ask(_ family: String) {
        guard !family.isEmpty, !family.hasPrefix("+"), !stacks.contains([family]) else { return }
        stacks.append([family])
    }

    /// The CSS generic families: always drawn by something, never substituted.
    static let generic: Set<String> = [
        "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif", "ui-monospace",
        "ui-rounded", "emoji", "math", "fangsong", "inherit", "initial", "unset", "revert", "revert-layer",
    ]

    /// A `font-family` value's families, unquoted, up to its first generic family.
    static func stack(_ value: String) -> [String] {
        var families: [String] = []
        for part in value.split(separator: ",") {
            let family = part.replacingOccurrences(of: "!important", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "'\" \t\n\r"))
            guard !family.isEmpty, !family.hasPrefix("var(") else { continue }
            if generic.contains(family.lowercased()) { break }
            families.append(family)
        }
        return families
    }

    static func matches(_ pattern: String, in text: String, groups: [Int]) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators, .caseInsensitive]) else { return [] }
        let whole = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: whole).map { match in
            groups.map { group in
                let range = match.range(at: group)
                guard range.location != NSNotFound, let bounds = Range(range, in: text) else { return "" }
                return String(text[bounds])
            }
        }
    }

    static func unescaped(_ xml: String) -> String {
        xml.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A text file's first MiB, as UTF-8 where it is, else Latin-1 (an RTF's font table is ASCII).
    static func text(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: 1 << 20) else { return "" }
        try? handle.close()
        return String(data: data, encoding: .utf8) ?? String(decoding: data.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}

/// The text of a zip's entries, each read to at most 8 MiB: a document's markup, never its media.
private struct ZipText {
    let archive: Archive
    static let maxBytes = 8 << 20

    init?(_ path: String) {
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch { return nil }
    }

    var names: [String] { archive.map(\.path) }

    subscript(name: String) -> String? {
        guard let entry = archive[name], entry.type == .file, entry.uncompressedSize <= Self.maxBytes else { return nil }
        var data = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: true) { chunk in
                data.append(chunk)
                if data.count > Self.maxBytes { throw CocoaError(.fileReadTooLarge) }
            }
        } catch {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }
}
