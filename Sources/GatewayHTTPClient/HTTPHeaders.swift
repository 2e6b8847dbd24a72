/// Header fields in the order they were added or received, looked up case-insensitively because
/// HTTP field names are case-insensitive (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One `name: value` header line.
    public struct Field: Sendable, Equatable {
        /// The field name as sent or received, spelling preserved.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// A header line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in order; a name may repeat.
    public private(set) var fields: [Field]

    /// Headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Headers from a literal such as `["Content-Type": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name`, ignoring case.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Appends a folded continuation line to the last field's value.
    mutating func extendLastValue(_ more: String) {
        guard !fields.isEmpty else { return }
        fields[fields.count - 1].value += " " + more
    }

    /// The first value of the field called `name`, ignoring case; nil when absent.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the field called `name`, ignoring case, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether a field called `name` is present, ignoring case.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// The fields, in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Field names are ASCII tokens, so ASCII case folding is the whole of the comparison.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}
