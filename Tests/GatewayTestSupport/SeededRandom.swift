/// A seedable generator (SplitMix64) so jittered code is deterministic in tests.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededRandom {
    /// `count` bytes, the same for the same seed: test data that no cache or compressor flatters.
    public static func bytes(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: random.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }
}
