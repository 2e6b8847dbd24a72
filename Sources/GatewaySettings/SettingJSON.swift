import Foundation

/// A value in the configuration file, read as the text its setting parses: a string, number or
/// boolean as one text; an array as several; an object as `KEY=VALUE` texts (`routes`,
/// `timeouts`), or, in an array, as `ID=SECRET` (`signing_keys`).
enum SettingJSON: Decodable {
    case scalar(String)
    case array([SettingJSON])
    case object([String: SettingJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .scalar(String(value))
        } else if let value = try? container.decode(Double.self) {
            // 15, not 15.0: whole numbers are read by Int(_:).
            self = .scalar(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value))
        } else if let value = try? container.decode(String.self) {
            self = .scalar(value)
        } else if let value = try? container.decode([SettingJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SettingJSON].self))
        }
    }

    /// The texts `form` takes, or nil when this is not a value of that kind.
    func texts(for form: Setting.Form) -> [String]? {
        switch (self, form) {
        case (.scalar(let text), _): return [text]
        case (.array(let items), .list): return items.compactMap(\.pairOrText)
        case (.object(let fields), .list):
            return fields.sorted { $0.key < $1.key }.compactMap { key, value in value.scalarText.map { "\(key)=\($0)" } }
        default: return nil
        }
    }

    private var scalarText: String? {
        if case .scalar(let text) = self { return text }
        return nil
    }

    /// An item of a list: its text, or an `{"id", "secret"}` object's `ID=SECRET`.
    private var pairOrText: String? {
        switch self {
        case .scalar(let text): return text
        case .object(let fields): return "\(fields["id"]?.scalarText ?? "")=\(fields["secret"]?.scalarText ?? "")"
        case .array: return nil
        }
    }
}
