import Synchronization

/// A value shared between a server handler thread and the test.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    public init(_ value: Value) { storage = Mutex(value) }
    public var value: Value { storage.withLock { $0 } }
    public func update<R>(_ change: (inout Value) -> R) -> R { storage.withLock { change(&$0) } }
}
