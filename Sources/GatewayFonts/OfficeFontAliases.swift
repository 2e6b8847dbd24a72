/// The families documents name most that no Linux has, each mapped onto an installed family:
/// metric-compatible ones where they exist (Carlito has Calibri's widths, so a line breaks
/// where Word broke it), else the Noto face of the same script and style, so no script falls to
/// a font without its glyphs. fontconfig applies them to every converter alike.
public enum OfficeFontAliases {
    /// One family a document may ask for, and the family drawn instead.
    public struct Alias: Sendable, Equatable {
        public let family: String
        public let substitute: String
        /// Whether the substitute has the family's glyph widths (a line breaks where it did).
        public let metricCompatible: Bool
    }

    /// Every alias, in the order fontconfig applies them.
    public static let all: [Alias] =
        metric.flatMap { substitute, families in families.map { Alias(family: $0, substitute: substitute, metricCompatible: true) } }
        + lookalike.flatMap { substitute, families in families.map { Alias(family: $0, substitute: substitute, metricCompatible: false) } }

    /// The substitute for `family` (compared without case), if the gateway maps it.
    public static func substitute(for family: String) -> Alias? {
        let wanted = family.lowercased()
        return all.first { $0.family.lowercased() == wanted }
    }

    /// Same widths as the original: Croscore and Liberation were drawn to match Microsoft's
    /// families, URW's base 35 (Debian's fonts-urw-base35) the PostScript ones.
    static let metric: KeyValuePairs<String, [String]> = [
        "Carlito": ["Calibri"],
        "Caladea": ["Cambria"],
        "Liberation Sans": ["Arial", "Arimo"],
        "Liberation Sans Narrow": ["Arial Narrow"],
        "Liberation Serif": ["Times New Roman", "Tinos"],
        "Liberation Mono": ["Courier New", "Cousine"],
        "Nimbus Sans": ["Helvetica"],
        "Nimbus Sans Narrow": ["Helvetica Narrow"],
        "Nimbus Roman": ["Times"],
        "Nimbus Mono PS": ["Courier"],
        "P052": ["Palatino", "Palatino Linotype", "Book Antiqua"],
        "URW Bookman": ["Bookman", "Bookman Old Style"],
        "C059": ["Century Schoolbook", "New Century Schoolbook"],
    ]

    /// Same script and style, other widths: the East Asian, Thai, Indic, Arabic and Hebrew
    /// families of Office and macOS, Windows' UI fonts and the platforms' emoji. Names are given
    /// in English and as Office writes them in the document's own language.
    static let lookalike: KeyValuePairs<String, [String]> = [
        "Noto Serif CJK JP": ["MS Mincho", "MS PMincho", "ＭＳ 明朝", "ＭＳ Ｐ明朝", "Yu Mincho", "游明朝", "Hiragino Mincho ProN", "ヒラギノ明朝 ProN"],
        "Noto Sans CJK JP": [
            "MS Gothic", "MS PGothic", "MS UI Gothic", "ＭＳ ゴシック", "ＭＳ Ｐゴシック", "Meiryo", "メイリオ", "Meiryo UI", "Yu Gothic",
            "游ゴシック", "Hiragino Kaku Gothic ProN", "Hiragino Sans", "ヒラギノ角ゴ ProN",
        ],
        "Noto Serif CJK SC": ["SimSun", "NSimSun", "宋体", "新宋体", "SimSun-ExtB", "KaiTi", "楷体", "FangSong", "仿宋", "STSong", "Songti SC"],
        "Noto Sans CJK SC": ["SimHei", "黑体", "Microsoft YaHei", "微软雅黑", "DengXian", "等线", "PingFang SC", "STHeiti", "Heiti SC"],
        "Noto Serif CJK TC": ["MingLiU", "PMingLiU", "細明體", "新細明體", "MingLiU_HKSCS", "DFKai-SB", "標楷體", "Songti TC"],
        "Noto Sans CJK TC": ["Microsoft JhengHei", "微軟正黑體", "PingFang TC", "Heiti TC"],
        "Noto Sans CJK KR": ["Malgun Gothic", "맑은 고딕", "Gulim", "굴림", "GulimChe", "Dotum", "돋움", "DotumChe", "Apple SD Gothic Neo"],
        "Noto Serif CJK KR": ["Batang", "바탕", "BatangChe", "Gungsuh", "궁서", "AppleMyungjo"],
        "Noto Sans Thai": ["Cordia New", "CordiaUPC", "Browallia New", "BrowalliaUPC", "Leelawadee", "Leelawadee UI", "Thonburi"],
        "Noto Serif Thai": ["Angsana New", "AngsanaUPC"],
        "Noto Sans Devanagari": ["Mangal", "Aparajita", "Nirmala UI", "Kohinoor Devanagari"],
        "Noto Serif Devanagari": ["Kokila", "Utsaah"],
        "Noto Naskh Arabic": ["Traditional Arabic", "Simplified Arabic", "Arabic Typesetting", "Sakkal Majalla", "Geeza Pro"],
        "Noto Sans Hebrew": ["Miriam", "Arial Hebrew", "Gisha"],
        "Noto Serif Hebrew": ["David", "Narkisim", "FrankRuehl"],
        "Noto Color Emoji": ["Segoe UI Emoji", "Apple Color Emoji", "Segoe UI Symbol"],
        "Noto Sans": ["Segoe UI", "San Francisco", "SF Pro Text", "SF Pro Display", "-apple-system", "BlinkMacSystemFont", "Roboto"],
        "DejaVu Sans": ["Verdana", "Tahoma", "Lucida Grande", "Lucida Sans Unicode", "Geneva"],
        "DejaVu Serif": ["Georgia", "Constantia"],
        "DejaVu Sans Mono": ["Consolas", "Menlo", "Monaco", "Lucida Console", "SF Mono"],
    ]
}
