import Foundation
import GatewayCore
import GatewayLibraryModel

/// A write that failed because the store's file system (or the database's) is out of space:
/// ENOSPC or EDQUOT from the kernel, `SQLITE_FULL` from SQLite, however deep it was wrapped.
/// Such a failure is the operator's to fix, and says so: 507 on the API, `insufficient_storage`
/// on a job, never a bare "internal error".
public enum DiskFull {
    /// The stable code every disk-full answer carries.
    public static let code = "insufficient_storage"

    /// What the person reading it should do.
    public static let message =
        "the store's disk is full (no space left on device): nothing of this request was kept and no filed document "
        + "was touched; free space on the store's file system (or move the store to a bigger one) and try again"

    /// Whether `error`, or an error it wraps, says the disk is full. Only what the system said is
    /// read: a storage failure's message, an OS error, a database's. Any other error of ours is a
    /// verdict on the request, whose message may quote the client's own words.
    public static func matches(_ error: any Error) -> Bool {
        switch error {
        case let failure as JobFailure: return failure.code == code
        case let library as LibraryError: return library.kind == .storage && mentionsFullDisk(library.message)
        case let staging as StagingError: return staging.kind == .storage && mentionsFullDisk(staging.message)
        case is any GatewayError: return false
        default: break
        }
        var next: NSError? = error as NSError
        var depth = 0
        while let current = next, depth < 8 {
            if current.domain == NSPOSIXErrorDomain, [Int(ENOSPC), Int(EDQUOT)].contains(current.code) { return true }
            if current.domain == NSCocoaErrorDomain, current.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
            next = current.userInfo[NSUnderlyingErrorKey] as? NSError
            depth += 1
        }
        // SQLite's errors (through GRDB) carry their result code only in their description.
        return mentionsFullDisk(String(reflecting: error))
    }

    /// The words the kernel (`strerror(ENOSPC)`, `strerror(EDQUOT)`) and SQLite use.
    static func mentionsFullDisk(_ text: String) -> Bool {
        ["No space left on device", "Disk quota exceeded", "database or disk is full", "SQLITE_FULL"].contains(where: text.contains)
    }
}
