/// An exclusive lock shared by every process that uses one library: a file lock on one machine,
/// an advisory lock in the database a cluster shares.
///
/// `LibraryLock` takes it through one holder per process, after the process's own tasks have
/// taken their turn, so only one task of a process ever waits here.
package protocol StoreWideLock: Sendable {
    associatedtype Holder: StoreWideLockHolder
    func makeHolder() throws -> Holder
}

/// One holder of a `StoreWideLock` (an open file, a database session); releases what it holds
/// when it is freed.
package protocol StoreWideLockHolder: AnyObject, Sendable {
    /// Waits, without holding a thread, until the lock is this holder's.
    func lock() async throws
    func unlock() async
}
