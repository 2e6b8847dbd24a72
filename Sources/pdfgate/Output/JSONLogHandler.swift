import Foundation
import GatewayWire
import Logging
import Synchronization

/// Log lines as JSON objects, one a line on standard error, as Gotenberg writes them in a
/// container (`LOG_FORMAT=json`, or `auto` without a terminal): log collectors and Gotenberg's
/// own checks read `"correlation_id":"…"` and `"path":"…"` from them. The level, the time, the
/// logger's label and the message come first; the metadata's keys follow, sorted, as strings.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// Whole lines only: two tasks logging at once must not interleave their bytes.
    private static let output = Mutex(())

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        var line = JSONOutput(capacity: 256)
        line.beginObject()
        line.key("level")
        line.string(event.level == .warning ? "warn" : event.level.rawValue)
        line.key("ts")
        line.date(Date())
        line.key("logger")
        line.string(label)
        line.key("msg")
        line.string("\(event.message)")
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line.key(key)
            line.string(Self.text(value))
        }
        line.endObject()
        var bytes = line.bytes
        bytes.append(UInt8(ascii: "\n"))
        Self.output.withLock { _ in FileHandle.standardError.write(Data(bytes)) }
    }

    private static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        default: value.description
        }
    }
}
