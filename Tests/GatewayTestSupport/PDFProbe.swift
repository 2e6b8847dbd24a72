import Foundation

/// What the independent tools read from a PDF — `pdfinfo`, `qpdf --json`, `pdftotext` — the
/// cross-checks every test holds our output to, in one place.
public enum PDFProbe {
    /// Pages as `pdfinfo` counts them; nil when it cannot read the file.
    public static func pageCount(_ path: String) async throws -> Int? {
        let result = try await run("pdfinfo", [path])
        guard result.status == 0 else { return nil }
        return field("Pages", in: result.stdout).flatMap { Int($0) }
    }

    /// The first page's size in points, as `pdfinfo` reads it; (0, 0) when it says none.
    public static func pageSize(_ path: String) async throws -> (width: Double, height: Double) {
        let numbers = field("Page size", in: try await run("pdfinfo", [path]).stdout)?.split(separator: " ").compactMap { Double($0) } ?? []
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : (0, 0)
    }

    /// A line of `pdfinfo`'s answer ("Tagged", "Producer" …), trimmed.
    public static func info(_ key: String, of path: String) async throws -> String? {
        field(key, in: try await run("pdfinfo", [path]).stdout)
    }

    /// One key of `qpdf --json` ("outlines", "acroform", "qpdf" …).
    public static func qpdfJSON(_ path: String, key: String) async throws -> [String: Any] {
        let json = try await run("qpdf", ["--json", "--json-key=\(key)", path]).stdout
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    }

    /// The titles of the bookmarks, depth first, as qpdf reads them.
    public static func outlineTitles(_ path: String) async throws -> [String] {
        func titles(_ items: [[String: Any]]) -> [String] {
            items.flatMap { [($0["title"] as? String) ?? ""] + titles($0["kids"] as? [[String: Any]] ?? []) }
        }
        return titles(try await qpdfJSON(path, key: "outlines")["outlines"] as? [[String: Any]] ?? [])
    }

    /// The text `pdftotext -layout` finds, every run of white space made one space.
    public static func text(_ path: String) async throws -> String {
        try await run("pdftotext", ["-layout", path, "-"]).stdout.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
    }

    private static func field(_ key: String, in pdfinfo: String) -> String? {
        pdfinfo.split(separator: "\n").first { $0.hasPrefix(key + ":") }.map { $0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces) }
    }
}

/// Page count as the `pdfinfo` CLI reads it: the independent cross-check for our inspector.
public func pdfinfoPageCount(_ path: String) async throws -> Int? { try await PDFProbe.pageCount(path) }
