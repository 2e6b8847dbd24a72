import Foundation
import Synchronization

/// What a process remembers of recently seen jobs, by id, under a lock: forgotten all at once
/// when it reaches `capacity`, since every entry is only a shortcut a miss can do without.
final class BoundedMemo<Value: Sendable>: Sendable {
    private let entries = Mutex<[UUID: Value]>([:])
    private let capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The remembered value; setting nil forgets it.
    subscript(id: UUID) -> Value? {
        get { entries.withLock { $0[id] } }
        set {
            entries.withLock { entries in
                if newValue != nil, entries.count >= capacity, entries[id] == nil { entries.removeAll(keepingCapacity: true) }
                entries[id] = newValue
            }
        }
    }

    /// Changes a remembered value in place; nothing when there is none.
    func change(_ id: UUID, _ body: (inout Value) -> Void) {
        entries.withLock { entries in
            guard var value = entries[id] else { return }
            body(&value)
            entries[id] = value
        }
    }
}
