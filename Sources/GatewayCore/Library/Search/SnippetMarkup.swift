/// Turns an index's marked-up snippet into segments. Both indexes mark matches with control
/// characters no extracted text keeps (STX before, ETX after: FTS5's `snippet()` and
/// PostgreSQL's `ts_headline` take them as their start and stop markers), so the text itself
/// never needs escaping and cannot forge a mark.
public enum SnippetMarkup {
    public static let start: Character = "\u{02}"
    public static let end: Character = "\u{03}"

    /// Segments of `marked`, runs of whitespace (line breaks included) shown as one space.
    public static func segments(_ marked: String) -> [SnippetSegment] {
        var segments: [SnippetSegment] = []
        var current = ""
        var inMatch = false
        func flush() {
            let text = collapse(current)
            current = ""
            guard !text.isEmpty else { return }
            if let last = segments.last, last.match == inMatch {
                segments[segments.count - 1].text += text
            } else {
                segments.append(SnippetSegment(text, match: inMatch))
            }
        }
        for character in marked {
            switch character {
            case start:
                flush()
                inMatch = true
            case end:
                flush()
                inMatch = false
            default:
                current.append(character)
            }
        }
        flush()
        return segments
    }

    /// Neighbouring runs of the same kind as one.
    static func merged(_ segments: [SnippetSegment]) -> [SnippetSegment] {
        var out: [SnippetSegment] = []
        for segment in segments where !segment.text.isEmpty {
            if let last = out.last, last.match == segment.match {
                out[out.count - 1].text += segment.text
            } else {
                out.append(segment)
            }
        }
        return out
    }

    private static func collapse(_ text: String) -> String {
        var out = ""
        var space = false
        for character in text {
            if character.isWhitespace || character == start || character == end {
                space = true
                continue
            }
            if space { out.append(" ") }
            space = false
            out.append(character)
        }
        if space { out.append(" ") }
        return out
    }
}
