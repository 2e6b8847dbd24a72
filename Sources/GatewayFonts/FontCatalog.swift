import Foundation
import GatewayCore
import GatewaySandbox

/// One family the converters can draw with.
public struct FontFamily: Sendable, Equatable, Codable {
    /// The family's name as documents ask for it.
    public let family: String
    /// Its styles (Regular, Bold, Italic…), sorted.
    public let styles: [String]
    /// The writing systems it covers (`FontScripts`).
    public let scripts: [String]
    /// Whether it comes from the operator's folder (`--fonts`) rather than the system.
    public let custom: Bool
}

/// What fontconfig offers the converters, asked with their own configuration file: the
/// families, each with the scripts it covers, and which family stands in for a missing one.
public struct FontCatalog: Sendable {
    /// The converters' fonts; nil asks the system's configuration.
    public let fonts: SandboxFonts?
    /// The operator's folder, whose families are marked `custom`.
    public let folder: FontFolder?
    let listPath: String
    let matchPath: String

    public init(fonts: SandboxFonts?, folder: FontFolder?, listPath: String = "/usr/bin/fc-list", matchPath: String = "/usr/bin/fc-match") {
        self.fonts = fonts
        self.folder = folder
        self.listPath = listPath
        self.matchPath = matchPath
    }

    /// Every family, sorted by name; throws when fontconfig's tools cannot be run.
    public func families() async throws(FontCatalogError) -> [FontFamily] {
        let text = try await run(listPath, ["--format", "%{family[0]}\t%{style[0]}\t%{lang}\t%{file}\n"])
        return Self.families(fromList: text, customFolder: folder?.path)
    }

    /// The family fontconfig draws when a document asks for `family`.
    public func match(_ family: String) async throws(FontCatalogError) -> String {
        try await run(matchPath, ["--format", "%{family[0]}", family]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `fc-list`'s lines (family, style, languages, file; tab-separated) grouped by family.
    static func families(fromList text: String, customFolder: String?) -> [FontFamily] {
        struct Gathered {
            var styles = Set<String>()
            var languages = Set<String>()
            var custom = false
        }
        var byFamily: [String: Gathered] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, !fields[0].isEmpty else { continue }
            var gathered = byFamily[fields[0], default: Gathered()]
            if !fields[1].isEmpty { gathered.styles.insert(fields[1]) }
            gathered.languages.formUnion(fields[2].split(separator: "|").map(String.init))
            if let customFolder, fields[3].hasPrefix(customFolder + "/") { gathered.custom = true }
            byFamily[fields[0]] = gathered
        }
        return byFamily.map { family, gathered in
            FontFamily(
                family: family,
                styles: gathered.styles.sorted(),
                scripts: FontScripts.covered(byLanguages: gathered.languages),
                custom: gathered.custom
            )
        }
        .sorted { $0.family.localizedStandardCompare($1.family) == .orderedAscending }
    }

    /// One fontconfig tool's standard output, asked with the converters' file.
    private func run(_ tool: String, _ arguments: [String]) async throws(FontCatalogError) -> String {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw FontCatalogError("\(tool) is not installed; install Debian's fontconfig")
        }
        var environment = ProcessInfo.processInfo.environment
        if let fonts { environment["FONTCONFIG_FILE"] = fonts.configurationFile }
        switch await ToolOutput.run(tool, arguments, environment: environment, timeout: .seconds(30)) {
        case .success(let text): return text
        case .failure(let failure): throw FontCatalogError("\((tool as NSString).lastPathComponent) \(failure.reason)")
        }
    }
}

/// Why the fonts could not be listed: fontconfig's tools are missing or failed.
public struct FontCatalogError: GatewayError {
    public var code: String { "fonts_unavailable" }
    public let message: String
    init(_ message: String) { self.message = message }
}
