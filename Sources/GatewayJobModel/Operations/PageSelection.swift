import Foundation

/// Pages of a document as a client writes them: `1-3,5,8-` (1-based; `N-` runs to the last
/// page). Checked for form when a job is created and against the page count before anything
/// runs, so a range outside the document is refused rather than silently clipped.
public struct PageSelection: Sendable, Equatable, Codable, CustomStringConvertible {
    /// One run of pages; `last == nil` means "to the end".
    public struct Run: Sendable, Equatable {
        public var first: Int
        public var last: Int?
    }

    public var runs: [Run]
    /// Pages past the end are left out rather than refused (Gotenberg's leniency, set on its
    /// routes' jobs when they run; never stored, never read from a client).
    public var clipsPastTheEnd = false

    /// Parses `text`; the error names the part that is wrong and shows the form.
    public init(_ text: String, field: String = "pages") throws(OperationError) {
        var runs: [Run] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            // Spaces and tabs around a piece are allowed (`1-3, 5`), as openapi.yaml's pattern says.
            let piece = part.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            let bounds = piece.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = Self.pageNumber(bounds[0]) else { throw Self.malformed(text, piece, field) }
            if bounds.count == 1 {
                runs.append(Run(first: first, last: first))
            } else if bounds[1].isEmpty {
                runs.append(Run(first: first, last: nil))
            } else {
                guard let last = Self.pageNumber(bounds[1]) else { throw Self.malformed(text, piece, field) }
                guard last >= first else {
                    // Well-formed, but no page is in it: unusable rather than malformed (422).
                    throw OperationError(
                        .outOfRange,
                        code: "invalid_page_range",
                        "\(field) '\(text)': '\(piece)' runs backwards; write the lower page first, e.g. \(last)-\(first)"
                    )
                }
                runs.append(Run(first: first, last: last))
            }
        }
        self.runs = runs
    }

    /// The highest page number a request may name (8 digits).
    public static let maxPage = 99_999_999

    /// A page number as openapi.yaml spells it: 1 to 8 ASCII digits, not starting with 0 (no
    /// sign, no `05`; a hundred million pages is beyond any document).
    private static func pageNumber(_ text: Substring) -> Int? {
        guard (1...8).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text.first != "0" else { return nil }
        return Int(text)
    }

    private static func malformed(_ text: String, _ piece: String, _ field: String) -> OperationError {
        OperationError(
            .invalid,
            code: "invalid_page_range",
            "\(field) '\(text)': '\(piece)' is not a page or a range; write pages like 1-3,5,8- (1 is the first page)"
        )
    }

    /// The pages in order, for a document of `pageCount` pages; refuses a page past the end
    /// (unless `clipsPastTheEnd`, which refuses only a selection left with no page).
    public func pages(of pageCount: Int, field: String = "pages") throws(OperationError) -> [Int] {
        if clipsPastTheEnd {
            guard let clipped = clipped(to: pageCount) else { throw pastTheEnd(runs[0].first, pageCount, field) }
            return try clipped.pages(of: pageCount, field: field)
        }
        var pages: [Int] = []
        for run in runs {
            let last = run.last ?? pageCount
            guard run.first <= pageCount, last <= pageCount else { throw pastTheEnd(max(run.first, last), pageCount, field) }
            pages.append(contentsOf: run.first...last)
        }
        return pages
    }

    private func pastTheEnd(_ page: Int, _ pageCount: Int, _ field: String) -> OperationError {
        OperationError(
            .outOfRange,
            code: "page_range_out_of_bounds",
            "\(field) '\(self)' asks for page \(page) of a document with \(pageCount) page\(pageCount == 1 ? "" : "s")"
        )
    }

    /// The runs cut to the pages a document of `pageCount` pages has; nil when none is left.
    public func clipped(to pageCount: Int) -> PageSelection? {
        let kept = runs.compactMap { run -> Run? in
            guard run.first <= pageCount else { return nil }
            return Run(first: run.first, last: min(run.last ?? pageCount, pageCount))
        }
        guard !kept.isEmpty else { return nil }
        var clipped = self
        clipped.runs = kept
        clipped.clipsPastTheEnd = false
        return clipped
    }

    /// The same pages, clipped to the document when they run.
    public var clipping: PageSelection {
        var copy = self
        copy.clipsPastTheEnd = true
        return copy
    }

    /// qpdf's page-range syntax, which ours is a subset of (`z` is its last page).
    public var qpdfRange: String { written(toTheEnd: "z") }

    public var description: String { written(toTheEnd: "") }

    /// The runs as text, an open end written as `toTheEnd`.
    private func written(toTheEnd: String) -> String {
        runs.map { run in
            switch run.last {
            case nil: "\(run.first)-\(toTheEnd)"
            case let last? where last == run.first: "\(run.first)"
            case let last?: "\(run.first)-\(last)"
            }
        }.joined(separator: ",")
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
