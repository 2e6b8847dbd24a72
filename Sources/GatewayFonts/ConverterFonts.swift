import Foundation
import GatewaySandbox

/// Sets up the fonts every converter sees: writes the gateway's fontconfig file into `directory`
/// (the system's fonts, the Office aliases, the operator's `folder`) and answers what the
/// sandbox binds and sets for each tool.
public enum ConverterFonts {
    /// The fontconfig file's name in its directory.
    public static let fileName = "fonts.conf"

    /// Writes the file (replacing one a previous start left) and answers the sandbox's view of it.
    public static func prepare(in directory: String, folder: FontFolder?) throws -> SandboxFonts {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/" + fileName
        let folders = folder.map { [$0.path] } ?? []
        try Data(FontConfigurationFile.text(folders: folders).utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        return SandboxFonts(configurationFile: file, folders: folders)
    }
}
