import GatewaySandbox

/// Watches the operator's font folder while the gateway runs: when a font is added, removed or
/// replaced, the converters' font generation moves on, so each warm tool restarts before its
/// next job and sees the folder as it is now (fontconfig reads fonts once per process).
/// Polling, because a folder of a few fonts costs a directory read, and it works on every file
/// system the folder may live on (inotify does not see a network mount's changes).
public struct FontFolderWatch: Sendable {
    public let folder: FontFolder
    public let generation: FontGeneration
    public let interval: Duration
    /// The folder as it was when the watch was made: what a change is a change from.
    let initial: String

    public init(folder: FontFolder, generation: FontGeneration, interval: Duration = .seconds(2)) {
        self.folder = folder
        self.generation = generation
        self.interval = interval
        initial = folder.fingerprint()
    }

    /// Compares the folder with what it held before (at first, when the watch was made) every
    /// `interval` until cancelled; `changed`
    /// hears of each change once the generation has moved on.
    public func run(changed: @Sendable () -> Void = {}) async {
        var seen = initial
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = folder.fingerprint()
            guard now != seen else { continue }
            seen = now
            generation.advance()
            changed()
        }
    }
}
