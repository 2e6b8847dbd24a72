import Foundation

/// The rules a document or folder name must follow (DESIGN §6), shared by every way in.
///
/// Names are sanitized rather than refused where the intent is clear (a control character
/// dropped, a `/` replaced), because they often come from uploaded file names; a name that is
/// empty after that, or a path segment of `.`/`..`, is refused.
public enum LibraryNames {
    /// Longest name in UTF-8 bytes, leaving room for the `.pdf` suffix in a 255-byte file name.
    public static let maxDocumentNameBytes = 251
    public static let maxFolderNameBytes = 255
    /// Folders are directories: a path of at most 64 levels and 512 characters (2,048 bytes
    /// at most), plus a document's file name and the store's own path, stays well inside
    /// Linux's 4,096-byte PATH_MAX, so a deep path is refused with its reason rather than
    /// failing in `mkdir` halfway down. Characters, not bytes, so that openapi.yaml can say it.
    public static let maxFolderDepth = 64
    public static let maxFolderPathLength = 512

    /// Owners name top-level directories, so they are restricted to a portable alphabet.
    public static func validateOwner(_ owner: String) throws(LibraryError) {
        let allowed = owner.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        guard allowed, !owner.isEmpty, owner.utf8.count <= 64, !owner.hasPrefix(".") else {
            throw LibraryError(.invalidArgument, "owner '\(owner)' is not valid: use 1–64 letters, digits, '-', '_' or '.', not starting with '.'")
        }
    }

    /// A `LIKE` pattern matching `search` anywhere, its own `%`, `_` and `\\` escaped (for
    /// `ESCAPE '\\'`); nil when there is nothing to search for.
    public static func likePattern(_ search: String?) -> String? {
        guard let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty else { return nil }
        let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%" + escaped + "%"
    }

    /// A document name from user input or a file name: drops a trailing `.pdf`, then sanitizes.
    public static func documentName(_ raw: String) throws(LibraryError) -> String {
        var base = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if base.lowercased().hasSuffix(".pdf") { base = String(base.dropLast(4)) }
        return try sanitize(base, maxBytes: maxDocumentNameBytes, what: "document name", original: raw)
    }

    /// The name a document gets when none was given, made from its file name or URL
    /// (`derived`): that, when the library takes it as a name, else "document" — a name like
    /// `...` must not fail a job after its conversion, nor an import.
    public static func documentName(derivedFrom derived: String?) -> String {
        guard let derived, (try? documentName(derived)) != nil else { return "document" }
        return derived
    }

    /// A single folder name (no `/` allowed: use a path for nesting).
    public static func folderName(_ raw: String) throws(LibraryError) -> String {
        if raw.contains("/") {
            throw LibraryError(.invalidName, "folder name \(quoted(raw)) contains '/'; give a single name, or a path where a path is accepted")
        }
        return try sanitize(raw, maxBytes: maxFolderNameBytes, what: "folder name", original: raw)
    }

    /// Splits a folder path like `Invoices/2026` into sanitized names; `""` and `/` are the root.
    /// `.` and `..` segments are refused so that no path can leave the owner's tree.
    public static func folderPath(_ raw: String) throws(LibraryError) -> [String] {
        let segments = raw.split(separator: "/", omittingEmptySubsequences: true)
        // The limits hold for what the client sent, as openapi.yaml states them.
        try checkFolderPath(raw, depth: segments.count)
        var names: [String] = []
        for segment in segments {
            let trimmed = segment.trimmingCharacters(in: .whitespaces)
            if trimmed == "." || trimmed == ".." {
                throw LibraryError(
                    .invalidPath,
                    "folder path \(quoted(raw)) contains '\(trimmed)'; use a path relative to the library root like 'Invoices/2026'"
                )
            }
            names.append(try sanitize(String(segment), maxBytes: maxFolderNameBytes, what: "folder name", original: raw))
        }
        return names
    }

    /// Refuses a folder path deeper or longer than a directory tree can safely be: see
    /// `maxFolderDepth`.
    public static func checkFolderPath(_ path: String, depth: Int) throws(LibraryError) {
        let shown = quoted(path.count > 60 ? String(path.prefix(60)) + "…" : path)
        if depth > maxFolderDepth {
            throw LibraryError(.invalidPath, "folder path \(shown) is \(depth) levels deep; at most \(maxFolderDepth) are allowed")
        }
        let length = path.unicodeScalars.count
        if length > maxFolderPathLength {
            throw LibraryError(
                .invalidPath,
                "folder path \(shown) is \(length) characters long; at most \(maxFolderPathLength) are allowed"
            )
        }
    }

    /// `Name 01`, `Name 02`, … — the candidate for the `n`th clash (n ≥ 1), kept within `maxBytes`.
    public static func numbered(_ name: String, _ n: Int, maxBytes: Int = maxDocumentNameBytes) -> String {
        let suffix = n < 100 ? String(format: " %02d", n) : " \(n)"
        var base = name
        while base.utf8.count + suffix.utf8.count > maxBytes { base.removeLast() }
        return base + suffix
    }

    static func sanitize(_ raw: String, maxBytes: Int, what: String, original: String) throws(LibraryError) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.precomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            // Not `.unassigned`: a code point Unicode has yet to name (a newer emoji, say) is
            // harmless in a file name, and a newer client may well send one.
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate:
                continue
            default:
                scalars.append(scalar == "/" ? "-" : scalar)
            }
        }
        var name = String(scalars).trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        name = name.trimmingCharacters(in: .whitespaces)
        while name.utf8.count > maxBytes { name.removeLast() }
        name = name.trimmingCharacters(in: .whitespaces)
        if name.isEmpty || name == "." || name == ".." {
            throw LibraryError(
                .invalidName,
                "\(what) \(quoted(original)) is empty once control characters, leading dots and spaces are removed; choose a name with visible characters"
            )
        }
        return name
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "\\'") + "'" }
}
