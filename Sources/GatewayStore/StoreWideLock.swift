import Foundation
import GatewayCore

#if canImport(Glibc)
import Glibc
#endif

/// `flock` on a file in the store: the lock of processes on one machine sharing a store.
package struct FileLock: StoreWideLock {
    let path: String

    package init(path: String) {
        self.path = path
    }

    package func makeHolder() throws -> Holder {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw FileOpsError(errno: errno, operation: "open", path: path) }
        return Holder(fd: fd)
    }

    /// flock locks belong to open file descriptions, so each holder opens the file anew.
    package final class Holder: StoreWideLockHolder {
        private let fd: Int32

        init(fd: Int32) {
            self.fd = fd
        }

        deinit { close(fd) }

        package func lock() throws {
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { throw FileOpsError(errno: errno, operation: "flock", path: "library.lock") }
            }
        }

        package func unlock() { flock(fd, LOCK_UN) }
    }
}
