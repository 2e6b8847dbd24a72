import Foundation

/// Splits text into words the way SQLite FTS5's `unicode61` tokenizer does: a word is a run of
/// letters, digits, private-use characters and combining marks (so a decomposed `ü` stays in its
/// word); everything else separates. The query parser and the name highlighter both split
/// here, so what they call a word is what the index calls one.
public enum SearchTokenizer {
    /// The words of `text`, as they are written.
    public static func tokens(in text: String) -> [String] {
        tokenRanges(in: text).map { String(text.unicodeScalars[$0]) }
    }

    /// Where each word of `text` is, in its unicode scalars.
    public static func tokenRanges(in text: String) -> [Range<String.UnicodeScalarView.Index>] {
        var ranges: [Range<String.UnicodeScalarView.Index>] = []
        let scalars = text.unicodeScalars
        var start: String.UnicodeScalarView.Index?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let inWord = isWordScalar(scalars[index])
            if inWord, start == nil { start = index }
            if !inWord, let begun = start {
                ranges.append(begun..<index)
                start = nil
            }
            index = scalars.index(after: index)
        }
        if let start { ranges.append(start..<scalars.endIndex) }
        return ranges
    }

    /// unicode61's default token categories (`L* N* Co`), plus combining marks.
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII without a table lookup: most text is.
        if scalar.value < 0x80 {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// `text` as an index without its own splitting and folding is given it: the folded words,
    /// one space apart (`Crème brûlée, e-mail` → `creme brulee e mail`). PostgreSQL's parser
    /// would otherwise split on its own rules (`e-mail` as one word, a URL as one) and keep
    /// accents; given this, it sees what FTS5's `unicode61` sees.
    public static func indexedWords(_ text: String) -> String {
        var words = ""
        words.reserveCapacity(text.utf8.count)
        for range in tokenRanges(in: text) {
            if !words.isEmpty { words.append(" ") }
            words.append(fold(String(text.unicodeScalars[range])))
        }
        return words
    }

    /// A word as the indexes compare it: lower case, without accents (`Müller` → `muller`).
    /// FTS5's `remove_diacritics 2` folds the same common letters for SQLite; for PostgreSQL this
    /// is the folding itself (`indexedWords`, `postgresTSQueryText`), and both backends'
    /// highlighting uses it.
    public static func fold(_ word: String) -> String {
        // Most words are ASCII: lower case is all there is to do (and Unicode decomposition,
        // per word of every page a snippet is cut from, was most of a search's time).
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: word.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var folded = String.UnicodeScalarView()
        for scalar in word.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: folded.append(scalar)
            }
        }
        return String(folded).lowercased()
    }
}
