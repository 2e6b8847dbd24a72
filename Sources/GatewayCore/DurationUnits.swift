import Foundation

/// `Duration` in the units the system calls and the wire want: one spelling of the arithmetic
/// instead of a copy at every call site.
extension Duration {
    /// Seconds with the fraction, for `Date`, JSON and messages.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// For a message: "2 s", "1.5 s".
    public var inWords: String {
        components.attoseconds == 0 ? "\(components.seconds) s" : String(format: "%.1f s", inSeconds)
    }

    /// Whole milliseconds, rounded down, for `poll(2)` and DevTools.
    public var inMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

/// Lower-case hex of bytes: how SHA-256 digests are stored and compared everywhere.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
}
