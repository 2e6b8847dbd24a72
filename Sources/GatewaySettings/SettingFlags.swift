import GatewayAssembly

/// `pdfgate serve`'s flags, read through the settings table: `--name VALUE`, `--name=VALUE`, a
/// toggle alone (`--unsandboxed-converters`), a list's flag repeated (`--allow-host a --allow-host b`).
/// `--config` is read here too: it names the file, which comes before every other source.
struct SettingFlags {
    /// In the order of the table, each with its values in the order given.
    var values: [(Setting, [String])] = []
    var configurationFile: String?

    init(parsing arguments: [String]) throws(ConfigurationError) {
        var found: [String: [String]] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError("'\(argument)' is not a setting; settings are flags like --port 8080 (see pdfgate serve --help)")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            let isToggle = Self.settings.contains { $0.flag == name && { if case .toggle = $0.form { true } else { false } }($0) }
            let value: String
            if let inline {
                value = inline
            } else if isToggle {
                value = "true"
            } else {
                guard index < arguments.endIndex else { throw ConfigurationError("--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            found[name, default: []].append(value)
        }
        configurationFile = found.removeValue(forKey: "config")?.last
        for setting in Self.settings {
            guard let flag = setting.flag, let given = found.removeValue(forKey: flag) else { continue }
            if case .list = setting.form {
                values.append((setting, given))
            } else {
                values.append((setting, [given[given.count - 1]]))  // the last one given wins
            }
        }
        if let unknown = found.keys.sorted().first {
            let flags = ["config"] + Self.settings.compactMap(\.flag)
            let hint = Self.suggestion(for: unknown, among: flags).map { "did you mean --\($0)? " } ?? ""
            throw ConfigurationError("--\(unknown) is not a setting of pdfgate serve; \(hint)pdfgate serve --help lists them")
        }
    }

    /// Ours, then Gotenberg's flags for them (`--api-timeout`).
    static let settings = ServerSettings.all + GotenbergSettings.all

    /// Every setting's three spellings and what it does, a paragraph each, for `--help`.
    static var help: String {
        var paragraphs = [
            "--config FILE, $PDFGATE_CONFIG: the JSON settings file, with the keys named below."
        ]
        for setting in ServerSettings.all {
            var names: [String] = []
            if let flag = setting.flag {
                if case .toggle = setting.form { names.append("--\(flag)") } else { names.append("--\(flag) VALUE") }
            }
            if let environment = setting.environment { names.append("$" + environment) }
            names.append(setting.key)
            paragraphs.append(names.joined(separator: ", ") + ": " + setting.help)
        }
        paragraphs.append(
            "Gotenberg 8's flags and their environment variables are read too (--api-timeout, API_TIMEOUT, …): "
                + "as these settings where pdfgate has them, refused by name where it cannot honour them (README, Configuration)."
        )
        return paragraphs.joined(separator: "\n\n")
    }

    /// The known name closest to `unknown`, for a typo's error message.
    static func suggestion(for unknown: String, among names: [String]) -> String? {
        let simple = { (name: String) in name.lowercased().filter { $0.isLetter || $0.isNumber } }
        let wanted = simple(unknown)
        guard !wanted.isEmpty else { return nil }
        return names.first { simple($0) == wanted } ?? names.first { simple($0).hasPrefix(wanted) || wanted.hasPrefix(simple($0)) }
            ?? names.first { simple($0).contains(wanted) }
            ?? names.map { ($0, distance(simple($0), wanted)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein's distance: a letter left out, doubled or swapped is 1 or 2.
    private static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var row = Array(0...b.count)
        for i in a.indices {
            let above = row
            row[0] = i + 1
            for j in b.indices {
                row[j + 1] = min(above[j + 1] + 1, row[j] + 1, above[j] + (a[i] == b[j] ? 0 : 1))
            }
        }
        return row[b.count]
    }
}

extension ServerConfiguration {
    /// `pdfgate serve --help`'s list of settings.
    public static var flagsHelp: String { SettingFlags.help }
}
