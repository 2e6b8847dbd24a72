import Foundation

/// Settings written into a LibreOffice profile before its first start.
///
/// `BlockUntrustedRefererLinks` makes LibreOffice refuse to load linked graphics (an image a
/// document names by `http:` or `file:` URL instead of embedding it). No load property does
/// that: `UpdateDocMode=NO_UPDATE` still loads them for rendering. The sandbox already leaves
/// such a fetch nowhere to go; this keeps a `file:` link from pulling a system file visible in
/// the sandbox into the PDF, and saves waiting on a connection that cannot succeed.
package enum LibreOfficeProfile {
    static let settings = """
        <?xml version="1.0" encoding="UTF-8"?>
        <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <item oor:path="/org.openoffice.Office.Common/Security/Scripting">\
        <prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
        </oor:items>

        """

    /// Seeds `profileDirectory` with `settings` unless LibreOffice has already made it its own
    /// (it then keeps them in the same file).
    package static func prepare(_ profileDirectory: String) {
        let user = profileDirectory + "/user"
        let file = user + "/registrymodifications.xcu"
        guard !FileManager.default.fileExists(atPath: file) else { return }
        try? FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        try? Data(settings.utf8).write(to: URL(fileURLWithPath: file))
    }
}
