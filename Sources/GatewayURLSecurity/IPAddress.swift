/// An IPv4 or IPv6 address as bytes, parsed the lenient way browsers and libc do, so that
/// every spelling of an address (decimal `2130706433`, hex `0x7f.1`, octal `0177.0.0.1`,
/// IPv4-mapped IPv6 `::ffff:127.0.0.1`) is recognised for what it is.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])  // 16 bytes

    /// Parses a host that is an IP literal; nil for a name. IPv6 may come in brackets.
    public init?(host: String) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        if text.contains(":") {
            guard let bytes = Self.parseV6(text) else { return nil }
            self = .v6(bytes)
        } else if let value = Self.parseV4(text) {
            self = .v4(value)
        } else {
            return nil
        }
    }

    /// inet_aton rules: 1–4 parts, each decimal, 0x-hex or 0-octal; the last part fills the rest.
    static func parseV4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            let lower = part.lowercased()
            let value: UInt64?
            if lower.hasPrefix("0x") {
                value = lower.count == 2 ? 0 : UInt64(lower.dropFirst(2), radix: 16)
            } else if lower.count > 1 && lower.hasPrefix("0") {
                value = UInt64(lower.dropFirst(), radix: 8)
            } else {
                value = UInt64(lower, radix: 10)
            }
            guard let value else { return nil }
            values.append(value)
        }
        var result: UInt64 = 0
        for (index, value) in values.enumerated() {
            if index < values.count - 1 {
                guard value <= 0xFF else { return nil }
                result |= value << (8 * UInt64(3 - index))
            } else {
                let remainingBits = UInt64(8 * (4 - index))
                guard value < (UInt64(1) << remainingBits) else { return nil }
                result |= value
            }
        }
        return UInt32(result)
    }

    static func parseV6(_ text: String) -> [UInt8]? {
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var embeddedV4: UInt32?
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, into target: inout [UInt16], allowV4: Bool) -> Bool {
            guard !part.isEmpty else { return true }
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, field) in fields.enumerated() {
                if allowV4 && i == fields.count - 1 && field.contains(".") {
                    guard let v4 = parseStrictV4(String(field)) else { return false }
                    embeddedV4 = v4
                    continue
                }
                guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return false }
                target.append(value)
            }
            return true
        }
        if halves.count == 2 {
            sawGap = true
            guard groups(halves[0], into: &head, allowV4: false), groups(halves[1], into: &tail, allowV4: true) else { return nil }
        } else {
            guard groups(halves[0], into: &head, allowV4: true) else { return nil }
        }
        if let v4 = embeddedV4 {
            let target = sawGap ? tail : head
            var with = target
            with.append(UInt16(v4 >> 16))
            with.append(UInt16(v4 & 0xFFFF))
            if sawGap { tail = with } else { head = with }
        }
        let total = head.count + tail.count
        guard sawGap ? total < 8 : total == 8 else { return nil }
        let all = head + Array(repeating: 0, count: 8 - total) + tail
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Dotted-quad only, as allowed inside an IPv6 literal.
    static func parseStrictV4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: UInt32 = 0
        for part in parts {
            guard let value = UInt8(part) else { return nil }
            result = result << 8 | UInt32(value)
        }
        return result
    }

    /// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible IPv6 address.
    public var embeddedIPv4: UInt32? {
        guard case .v6(let b) = self else { return nil }
        let zeros = b[0..<10].allSatisfy { $0 == 0 }
        let value = UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15])
        if zeros && b[10] == 0xFF && b[11] == 0xFF { return value }
        if zeros && b[10] == 0 && b[11] == 0 && value > 1 { return value }  // deprecated ::a.b.c.d
        return nil
    }

    public var description: String {
        switch self {
        case .v4(let v): return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
        case .v6(let b):
            let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]), radix: 16) }
            return "[" + groups.joined(separator: ":") + "]"
        }
    }
}
