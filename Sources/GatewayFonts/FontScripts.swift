/// The writing systems `pdfgate fonts` reports a family covering, each by the fontconfig
/// language whose orthography stands for it (fontconfig reports coverage per language).
public enum FontScripts {
    /// A script's name as listed, and the fontconfig language that tests it.
    public static let all: KeyValuePairs<String, String> = [
        "Latin": "en", "Cyrillic": "ru", "Greek": "el", "Arabic": "ar", "Hebrew": "he", "Devanagari": "hi", "Bengali": "bn",
        "Tamil": "ta", "Thai": "th", "Japanese": "ja", "Chinese (Simplified)": "zh-cn", "Chinese (Traditional)": "zh-tw",
        "Korean": "ko", "Armenian": "hy", "Georgian": "ka", "Ethiopic": "am", "Emoji": "und-zsye",
    ]

    /// The scripts a font covers, given the languages fontconfig says it supports.
    public static func covered(byLanguages languages: Set<String>) -> [String] {
        all.filter { languages.contains($0.value) }.map(\.key)
    }
}
