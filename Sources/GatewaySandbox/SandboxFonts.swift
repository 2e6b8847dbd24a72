import Foundation
import Synchronization

/// The fonts every sealed tool sees besides the system's: the gateway's own fontconfig file
/// (which maps the Office families onto the installed ones and adds the operator's folder) and
/// the folders it names, bound read-only. A tool finds the file through `FONTCONFIG_FILE`.
public struct SandboxFonts: Sendable {
    /// The fontconfig file tools read instead of /etc/fonts/fonts.conf (which it includes).
    public let configurationFile: String
    /// Folders of fonts the file adds: bound read-only into every sandbox.
    public let folders: [String]
    /// Moves on when the fonts change, so warm tools started before restart before their next job.
    public let generation: FontGeneration

    public init(configurationFile: String, folders: [String], generation: FontGeneration = FontGeneration()) {
        self.configurationFile = configurationFile
        self.folders = folders
        self.generation = generation
    }

    /// What a tool's environment gains.
    var environment: [String: String] { ["FONTCONFIG_FILE": configurationFile] }

    /// What a tool must see: the file's directory and the folders.
    var readable: [String] {
        [(configurationFile as NSString).deletingLastPathComponent] + folders
    }
}

/// A count of font changes that warm tools compare with the one they started under: fontconfig
/// reads the fonts once per process, so a tool that started before a change never sees it.
public final class FontGeneration: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    /// The current generation.
    public var current: Int { value.load(ordering: .acquiring) }

    /// Marks the fonts as changed: every warm tool restarts before its next job.
    public func advance() { value.add(1, ordering: .releasing) }
}
