import Foundation

/// Reads the PDF/A identification (`pdfaid:part`, `pdfaid:conformance`) from an XMP packet.
///
/// A plain text scan rather than an XML parser: packets in the wild are often not well-formed,
/// and writers use both the attribute form (`pdfaid:part="2"`) and the element form
/// (`<pdfaid:part>2</pdfaid:part>`), under whatever prefix they bound to the namespace.
package enum XMPConformance {
    static let pdfaNamespace = "http://www.aiim.org/pdfa/ns/id/"

    /// The declared PDF/A level, e.g. `2B`, `1A`, or `4` (PDF/A-4 has no conformance letter);
    /// nil when the packet declares no part.
    package static func pdfaLevel(xmp: String) -> String? {
        for prefix in prefixes(in: xmp) {
            guard let part = property("part", prefix: prefix, in: xmp),
                let number = Int(part), number > 0
            else { continue }
            let conformance = property("conformance", prefix: prefix, in: xmp) ?? ""
            let letter = conformance.uppercased().filter { $0.isLetter }
            return "\(number)\(letter)"
        }
        return nil
    }

    /// Prefixes bound to the PDF/A namespace, `pdfaid` first since nearly every writer uses it.
    static func prefixes(in xmp: String) -> [String] {
        var found = ["pdfaid"]
        var rest = xmp[...]
        while let binding = rest.range(of: "xmlns:") {
            rest = rest[binding.upperBound...]
            guard let equals = rest.firstIndex(of: "=") else { break }
            let prefix = rest[..<equals].trimmingCharacters(in: .whitespaces)
            let afterEquals = rest[rest.index(after: equals)...].drop { $0 == " " }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'" else { continue }
            let value = afterEquals.dropFirst().prefix { $0 != quote }
            if value == pdfaNamespace, !found.contains(prefix) { found.append(prefix) }
        }
        return found
    }

    /// The value of `prefix:name`, given as an attribute or as a simple element.
    static func property(_ name: String, prefix: String, in xmp: String) -> String? {
        let qualified = "\(prefix):\(name)"
        var rest = xmp[...]
        while let hit = rest.range(of: qualified) {
            let before = hit.lowerBound == xmp.startIndex ? " " : xmp[xmp.index(before: hit.lowerBound)]
            rest = xmp[hit.upperBound...]
            // Reject longer names that merely contain ours, e.g. `xpdfaid:part` or `pdfaid:partX`.
            guard let after = rest.first, !(before.isLetter || before.isNumber || before == "_") else { continue }

            if before == "<" && (after == ">" || after.isWhitespace) {
                // Element form: <pdfaid:part>2</pdfaid:part>
                guard let close = rest.firstIndex(of: ">") else { return nil }
                let content = rest[rest.index(after: close)...].prefix { $0 != "<" }
                let value = content.trimmingCharacters(in: .whitespacesAndNewlines)
                if !value.isEmpty { return value }
            } else if after == "=" || after.isWhitespace {
                // Attribute form: pdfaid:part="2"
                let afterName = rest.drop { $0.isWhitespace }
                guard afterName.first == "=" else { continue }
                let afterEquals = afterName.dropFirst().drop { $0.isWhitespace }
                guard let quote = afterEquals.first, quote == "\"" || quote == "'" else { continue }
                let value = afterEquals.dropFirst().prefix { $0 != quote }
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                if !value.isEmpty { return value }
            }
        }
        return nil
    }
}
