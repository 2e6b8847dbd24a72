/// A true/false value spelled as text: a query parameter, a form field, a `--option`.
///
/// Only `true` and `false`, as JSON and the OpenAPI description spell a boolean. Accepting
/// `1`, `yes`, `on` or an empty value too made the same request mean different things on
/// different routes (`recursive=` was true, `landscape=` an error), and a misspelling such as
/// `recursive=ture` silently meant something.
public enum WireFlag {
    /// The value, or nil when `text` is neither `true` nor `false` (any case).
    public static func parse(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true": true
        case "false": false
        default: nil
        }
    }
}
