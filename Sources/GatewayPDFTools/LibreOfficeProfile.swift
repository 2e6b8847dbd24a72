import Foundation
import Synchronization

/// Settings written into a LibreOffice profile before its first start.
///
/// `BlockUntrustedRefererLinks` makes LibreOffice refuse to load linked graphics (an image a
/// document names by `http:` or `file:` URL instead of embedding it). No load property does
/// that: `UpdateDocMode=NO_UPDATE` still loads them for rendering. The sandbox already leaves
/// such a fetch nowhere to go; this keeps a `file:` link from pulling a system file visible in
/// the sandbox into the PDF, and saves waiting on a connection that cannot succeed.
///
/// `ooSetupLastVersion`, the installation's own version: LibreOffice takes a profile without it
/// for one of an older release and runs its graphics self-tests (`GraphicsRenderTests`, with
/// 4096×4096 surfaces) at every start, since only its GUI records the version; in a headless
/// start they cost more than a short document's conversion (README, "Jobs and converters").
package enum LibreOfficeProfile {
    static func settings(version: String?) -> String {
        let lastVersion = version.map {
            #"<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse">"#
                + "<value>\($0)</value></prop></item>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <item oor:path="/org.openoffice.Common/Security/Scripting">\
            <prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
            \(lastVersion ?? "")</oor:items>

            """
    }

    /// Seeds `profileDirectory` with `settings` for the LibreOffice that `soffice` starts, unless
    /// LibreOffice has already made it its own (it then keeps them in the same file).
    package static func prepare(_ profileDirectory: String, soffice: String) {
        let user = profileDirectory + "/user"
        let file = user + "/registrymodifications.xcu"
        guard !FileManager.default.fileExists(atPath: file) else { return }
        try? FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        try? Data(settings(version: productVersion(soffice: soffice)).utf8).write(to: URL(fileURLWithPath: file))
    }

    /// The installation's `ooSetupVersion` (`7.4`), from `share/registry/main.xcd` beside the
    /// `program/` directory `soffice` lives in; nil when it cannot be read. Read once per path.
    static func productVersion(soffice: String) -> String? {
        if let known = versions.withLock({ $0[soffice] }) { return known }
        let program = URL(fileURLWithPath: soffice).resolvingSymlinksInPath().deletingLastPathComponent()
        let registry = program.deletingLastPathComponent().appendingPathComponent("share/registry/main.xcd")
        let version = (try? String(contentsOf: registry, encoding: .utf8)).flatMap(Self.setupVersion(inRegistry:))
        versions.withLock { $0[soffice] = version }
        return version
    }

    /// `<prop oor:name="ooSetupVersion"><value>7.4</value>` of a registry file: the value, not
    /// the schema's declaration (which has a type and no value).
    static func setupVersion(inRegistry registry: String) -> String? {
        let pattern = /<prop oor:name="ooSetupVersion">\s*<value>([0-9]+\.[0-9]+)<\/value>/
        return (try? pattern.firstMatch(in: registry)).map { String($0.output.1) }
    }

    private static let versions = Mutex<[String: String?]>([:])
}
