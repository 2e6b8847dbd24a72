import Foundation

/// The fontconfig file every converter reads (`FONTCONFIG_FILE`): the gateway's aliases first,
/// so they come before the generic fallbacks the system's rules append, then the system's own
/// configuration, then the operator's folder of fonts.
public enum FontConfigurationFile {
    /// The file's text.
    /// - Parameters:
    ///   - folders: folders of the operator's fonts, searched besides the system's.
    ///   - system: the system's configuration, included whole (its fonts, cache and rules).
    public static func text(folders: [String], system: String = "/etc/fonts/fonts.conf") -> String {
        var lines = [
            #"<?xml version="1.0"?>"#,
            #"<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">"#,
            "<!-- Written by pdfgate at each start; edits are lost. -->",
            "<fontconfig>",
        ]
        for alias in OfficeFontAliases.all {
            // `accept` puts the substitute right after the name, so the family itself wins
            // where it is installed (the operator's folder may hold the real Calibri), and the
            // substitute wins over every fallback the system's rules append. `binding="same"`
            // makes it as strong as the name it follows.
            lines += [
                "  <alias binding=\"same\">",
                "    <family>\(escaped(alias.family))</family>",
                "    <accept><family>\(escaped(alias.substitute))</family></accept>",
                "  </alias>",
            ]
        }
        lines.append("  <include ignore_missing=\"yes\">\(escaped(system))</include>")
        // Type 1 fonts are out: none of the converters draws with them (LibreOffice dropped
        // them, Chromium reads TrueType and CFF only), and Debian's URW base 35 installs each
        // face as Type 1 twice beside its OpenType copy, 70 faces that every lookup would sort
        // for nothing (`make bench`'s font lookup lines: some 15 % of a sort).
        lines += [
            "  <selectfont><rejectfont><pattern>",
            "    <patelt name=\"fontformat\"><string>Type 1</string></patelt>",
            "  </pattern></rejectfont></selectfont>",
        ]
        for folder in folders { lines.append("  <dir>\(escaped(folder))</dir>") }
        lines.append("</fontconfig>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
