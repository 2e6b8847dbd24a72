/// An optional value written as JSON `null` when absent instead of being left out, for keys the
/// API promises on every answer (`folder_id` and `parent_id` at the root). Types keep their
/// synthesized encoding, so a field added later cannot be forgotten by a hand-written encoder.
@propertyWrapper
public struct NullWhenAbsent<Value: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
