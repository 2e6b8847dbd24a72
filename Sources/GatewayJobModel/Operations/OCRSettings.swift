import Foundation

extension PDFOperation {
    /// `ocr`: an invisible text layer from Tesseract under every page that has no text yet (all
    /// pages with `force`), the page images left as they are.
    public struct OCR: Sendable, Equatable {
        /// Tesseract's language codes (`eng`, `deu`, `chi_sim`), tried together.
        public var languages: [String]
        /// OCR pages that already have text too: their text stays and a second layer is added
        /// (OCRmyPDF's `--force-ocr` would rasterize the page instead; we never touch the images).
        public var force: Bool

        public init(languages: [String] = OCR.defaultLanguages, force: Bool = false) {
            self.languages = languages
            self.force = force
        }

        public static let defaultLanguages = ["eng"]
        /// Languages one operation may combine: each costs start-up time and recognition time.
        public static let maxLanguages = 8
        /// Pages one job may OCR: each costs seconds of CPU, so more belong in several jobs.
        public static let maxPages = 500

        /// How Tesseract's `-l` takes them: `eng+deu`.
        public var tesseractLanguages: String { languages.joined(separator: "+") }

        /// A language code is a file name in Tesseract's data directory (`eng.traineddata`), so
        /// it must never carry `/`, `.` or anything else that could reach outside it.
        nonisolated(unsafe) static let languageCode = /[a-z]{3}(_[a-z]+)*/

        /// Why `languages` cannot be used (said of `field`), or nil.
        public static func languagesProblem(_ languages: [String], field: String) -> OperationError? {
            func refuse(_ problem: String) -> OperationError {
                OperationError(.invalid, code: "invalid_ocr_language", "\(field) \(problem)")
            }
            guard !languages.isEmpty, languages.count <= maxLanguages else {
                return refuse("needs 1 to \(maxLanguages) Tesseract language codes, such as [\"eng\", \"deu\"]")
            }
            for language in languages where language.wholeMatch(of: languageCode) == nil {
                let shown = language.count > 40 ? String(language.prefix(40)) + "…" : language
                return refuse(
                    "'\(shown)' is not a Tesseract language code: three lower-case letters, optionally with a suffix such as _sim (eng, deu, chi_sim)"
                )
            }
            if Set(languages).count != languages.count { return refuse("names a language twice") }
            return nil
        }

        /// The languages of `languages` missing from `installed`, as a refusal naming what is
        /// installed and what to install; nil when all are there.
        public static func unavailable(_ languages: [String], installed: Set<String>) -> String? {
            let missing = languages.filter { !installed.contains($0) }
            guard !missing.isEmpty else { return nil }
            let names = missing.map { "'\($0)'" }.joined(separator: ", ")
            let packages = missing.map(debianPackage).joined(separator: " ")
            let have = installed.subtracting(["osd"]).sorted().joined(separator: ", ")
            return
                "OCR language \(names) \(missing.count == 1 ? "is" : "are") not installed on this gateway (installed: \(have.isEmpty ? "none" : have)); "
                + "use one of those, or have the operator install Debian's \(packages)"
        }

        /// Debian's package for a language's data: `tesseract-ocr-chi-sim` for `chi_sim`.
        public static func debianPackage(_ language: String) -> String {
            "tesseract-ocr-" + language.replacingOccurrences(of: "_", with: "-")
        }
    }
}
