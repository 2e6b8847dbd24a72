import Foundation
import GatewayAssembly
import GatewayURLSecurity

extension ServerConfiguration {
    /// Defaults, then the JSON file (`--config`, else `$PDFGATE_CONFIG`), then the environment,
    /// then `arguments` (`serve`'s flags): every source read through `ServerSettings.all`.
    public static func load(
        file path: String? = nil,
        environment: [String: String],
        arguments: [String] = [],
        defaults: ServerConfiguration = ServerConfiguration()
    ) throws(ConfigurationError)
        -> ServerConfiguration
    {
        let flags = try SettingFlags(parsing: arguments)
        var configuration = defaults
        if let path = flags.configurationFile ?? path ?? environment["PDFGATE_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            try configuration.apply(file: path)
            configuration.configurationFile = path
        }
        // Ours, then Gotenberg's names for them: a compose file written for Gotenberg keeps working.
        for setting in ServerSettings.all + GotenbergSettings.all {
            guard let name = setting.environment, let value = environment[name], !value.isEmpty else { continue }
            switch setting.form {
            case .single, .toggle: try setting.apply(&configuration, [value], name)
            case .list(let separator):
                try setting.apply(&configuration, value.split(separator: separator).map { $0.trimmingCharacters(in: .whitespaces) }, name)
            }
        }
        for (setting, values) in flags.values { try setting.apply(&configuration, values, "--" + (setting.flag ?? setting.key)) }
        try configuration.readGotenbergEnvironment(environment)
        return configuration
    }

    /// What Gotenberg's settings leave in other variables: the port `--api-port-from-env`
    /// names, and the Basic-auth credentials `--api-enable-basic-auth` turns on.
    private mutating func readGotenbergEnvironment(_ environment: [String: String]) throws(ConfigurationError) {
        if let name = portFromEnvironment {
            guard let text = environment[name], !text.isEmpty else {
                throw ConfigurationError("api-port-from-env names \(name), which is not set; set it to the port, or drop api-port-from-env")
            }
            port = try SettingText.int(text, name, in: 0...65535)
        }
        guard gotenbergBasicAuth else { return }
        func credential(_ name: String) throws(ConfigurationError) -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw ConfigurationError(
                    "API_ENABLE_BASIC_AUTH is on, but \(name) is not set: set GOTENBERG_API_BASIC_AUTH_USERNAME and GOTENBERG_API_BASIC_AUTH_PASSWORD, or turn Basic auth off"
                )
            }
            return value
        }
        basicAuth = BasicCredentials(
            username: try credential("GOTENBERG_API_BASIC_AUTH_USERNAME"),
            password: try credential("GOTENBERG_API_BASIC_AUTH_PASSWORD")
        )
    }

    /// The JSON file's settings, by their keys; a key no setting has is refused, naming them.
    mutating func apply(file path: String) throws(ConfigurationError) {
        let object: [String: SettingJSON]
        do {
            object = try JSONDecoder().decode([String: SettingJSON].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigurationError("cannot read the configuration file \(path): \(error)")
        }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let setting = ServerSettings.all.first(where: { $0.key == key }) else {
                let keys = ServerSettings.all.map(\.key)
                let hint =
                    SettingFlags.suggestion(for: key, among: keys).map { "did you mean \($0)?" } ?? "the keys are \(keys.joined(separator: ", "))"
                throw ConfigurationError("\(path): '\(key)' is not a setting; \(hint)")
            }
            let source = "\(key) in \(path)"
            guard let values = value.texts(for: setting.form) else {
                throw ConfigurationError("\(source) has the wrong kind of value; \(setting.help)")
            }
            if case .list = setting.form {} else if values.count != 1 { throw ConfigurationError("\(source) takes one value, not a list") }
            try setting.apply(&self, values, source)
        }
    }

    /// `on` or `off` (also true/false), or the modules to keep (`chromium,pdfengines`), from
    /// `source` for the error message.
    public mutating func setGotenbergAPI(_ value: String, from source: String) throws(ConfigurationError) {
        switch value.lowercased() {
        case "on", "true", "1", "yes": gotenbergAPI = true
        case "off", "false", "0", "no": gotenbergAPI = false
        default:
            let names = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let modules = names.compactMap(GotenbergModule.init(rawValue:))
            guard !names.isEmpty, modules.count == names.count else {
                let all = GotenbergModule.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("\(source) must be on, off, or modules among \(all) (comma-separated), not '\(value)'")
            }
            gotenbergModules = Set(modules)
        }
    }

    /// Gotenberg's own defaults, for `pdfgate gotenberg`: every interface, port 3000, no
    /// credentials (its routes alone then), private addresses reachable.
    public static var gotenbergDefaults: ServerConfiguration {
        var defaults = ServerConfiguration()
        defaults.host = "0.0.0.0"
        defaults.port = 3000
        defaults.gotenbergMode = true
        defaults.logFormat = .auto
        defaults.privateAddressPurposes = Set(URLPurpose.allCases)
        return defaults
    }

    /// Gotenberg's `--api-root-path`: a path that starts and ends with `/`.
    public mutating func setGotenbergRootPath(_ value: String, from source: String) throws(ConfigurationError) {
        let path = value.hasSuffix("/") ? value : value + "/"
        guard path.hasPrefix("/"), !path.contains("//"), path.allSatisfy({ $0.isLetter || $0.isNumber || "/-_.~".contains($0) }) else {
            throw ConfigurationError("\(source) must be a path such as /gotenberg/, not '\(value)'")
        }
        gotenbergRootPath = path
    }

}
