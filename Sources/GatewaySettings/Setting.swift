import GatewayAssembly

/// One setting of `pdfgate serve`, declared once: its key in the JSON file, its environment
/// variable, its command-line flag, its help, and how its text becomes configuration. The table
/// of them (`ServerSettings.all`) drives the file, the environment, the flags and `--help` alike,
/// so a setting cannot be readable one way and forgotten another.
struct Setting: Sendable {
    /// How many values a source gives it.
    enum Form: Sendable {
        /// One value: `--port 8080`, `"port": 8080`, `PDFGATE_PORT=8080`.
        case single
        /// On or off: a flag without a value (`--unsandboxed-converters`), `true`/`false` in the
        /// file, `true`/`1`/`on`/`yes` or `false`/`0`/`off`/`no` in the environment.
        case toggle
        /// Several: a repeatable flag, a JSON array (or an object's `KEY=VALUE` pairs), an
        /// environment variable split at `separator`. Each source adds to the ones before it.
        case list(separator: Character)
    }

    /// snake_case, as the API's JSON: `lease_seconds`.
    let key: String
    /// `PDFGATE_…`; nil where a setting has none.
    let environment: String?
    /// Without its dashes: `lease`; nil where a setting has none (a secret: `ps` shows flags).
    let flag: String?
    let form: Form
    let help: String
    /// Applies `values` (one for `.single` and `.toggle`) that came from `source` (named in
    /// errors); throws `ConfigurationError`.
    private let parse: @Sendable (inout ServerConfiguration, [String], _ source: String) throws -> Void

    init(
        _ key: String,
        environment: String? = nil,
        flag: String? = nil,
        form: Form = .single,
        help: String,
        apply: @escaping @Sendable (inout ServerConfiguration, [String], _ source: String) throws -> Void
    ) {
        (self.key, self.environment, self.flag, self.form, self.help, parse) = (key, environment, flag, form, help, apply)
    }

    /// Applies `values` that came from `source` to `configuration`.
    func apply(_ configuration: inout ServerConfiguration, _ values: [String], _ source: String) throws(ConfigurationError) {
        do {
            try parse(&configuration, values, source)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(source): \(error)")
        }
    }
}

/// The values a setting's text is read as, each refusal naming its source and what it takes.
enum SettingText {
    static func int(_ text: String, _ source: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(ConfigurationError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("\(source) '\(text)' is not a whole number")
        }
        guard range.contains(value) else {
            throw ConfigurationError("\(source) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }

    static func positive(_ text: String, _ source: String) throws(ConfigurationError) -> Int {
        let value = try int(text, source)
        guard value > 0 else { throw ConfigurationError("\(source) must be a positive number, not \(value)") }
        return value
    }

    static func seconds(_ text: String, _ source: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Duration {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("\(source) '\(text)' is not a number of seconds")
        }
        guard range.contains(value) else {
            throw ConfigurationError(
                "\(source) must be between \(plain(range.lowerBound)) and \(plain(range.upperBound)) seconds, not \(plain(value))"
            )
        }
        return .milliseconds(Int64(value * 1000))
    }

    /// 2, not 2.0.
    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func toggle(_ text: String, _ source: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "true", "1", "on", "yes": return true
        case "false", "0", "off", "no": return false
        default: throw ConfigurationError("\(source) must be true or false, not '\(text)'")
        }
    }
}
