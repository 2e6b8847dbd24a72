/// An exclusive lock shared by every process that uses one library.
///
/// Locks taken through two holders exclude each other even inside one process: that is what
/// lets `LibraryLock.holding` keep the lock across awaits while this process's other callers
/// wait for it.
package protocol StoreWideLock: Sendable {
    associatedtype Holder: StoreWideLockHolder
    func makeHolder() throws -> Holder
}

/// One holder of a `StoreWideLock` (an open file, a database session); releases what it holds
/// when it is freed.
package protocol StoreWideLockHolder: AnyObject, Sendable {
    /// Blocks until the lock is this holder's.
    func lock() throws
    func unlock()
}
