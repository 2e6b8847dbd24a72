import Foundation

/// The environment converters run with: the gateway's own, with HOME, TMPDIR and the XDG
/// directories pointed into a private directory, so parallel runs never share caches, configs or
/// lock files (and nothing lands in the gateway user's real home).
package func childEnvironment(privateDirectory: String, extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    let home = privateDirectory + "/home"
    let tmp = privateDirectory + "/tmp"
    for directory in [home, tmp] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    environment["HOME"] = home
    environment["TMPDIR"] = tmp
    environment["XDG_CONFIG_HOME"] = home + "/.config"
    environment["XDG_CACHE_HOME"] = home + "/.cache"
    environment["XDG_DATA_HOME"] = home + "/.local/share"
    environment["XDG_RUNTIME_DIR"] = tmp
    // No session bus exists on a server; saying so up front saves Chromium's retries.
    environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
    // A Python on PYTHONPATH/PYTHONHOME from a pyenv shell would break Debian's python3 and Calibre.
    environment["PYTHONPATH"] = nil
    environment["PYTHONHOME"] = nil
    return environment.merging(extra) { $1 }
}
