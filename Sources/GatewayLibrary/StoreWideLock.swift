import Foundation
import GatewayLibraryModel
import Glibc

#if canImport(Glibc)
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

        /// Tries without blocking and sleeps between tries: another process holds the lock only
        /// for one short mutation (or an fsck), and a blocking `flock` would hold a thread of
        /// the cooperative pool meanwhile.
        package func lock() async throws {
            var pause = Duration.milliseconds(1)
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                switch errno {
                case EINTR: continue
                case EWOULDBLOCK:
                    // A cancelled task still waits (a mutation is not left half done), by the clock.
                    do { try await Task.sleep(for: pause) } catch { usleep(UInt32(pause / .microseconds(1))) }
                    pause = min(pause * 2, .milliseconds(50))
                default: throw FileOpsError(errno: errno, operation: "flock", path: "library.lock")
                }
            }
        }

        package func unlock() { flock(fd, LOCK_UN) }
    }
}
