import Foundation
import GatewayLibraryModel
import Glibc

#if canImport(Glibc)
#endif

/// One job engine per store. An engine resumes every unfinished job in the store at start, so a
/// second one — a `pdfgate convert` next to a running `pdfgate serve` — would run the server's
/// jobs a second time. The first engine holds an exclusive `flock` on `.pdfgate/engine.lock`
/// for its life (the kernel drops it if the process dies); a second is refused with a message.
public final class EngineLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock, or throws `store_busy` naming the store.
    public init(paths: StorePaths) throws(LibraryError) {
        let path = paths.meta + "/engine.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw LibraryError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var taken = flock(fd, LOCK_EX | LOCK_NB)
        while taken != 0 && errno == EINTR { taken = flock(fd, LOCK_EX | LOCK_NB) }
        guard taken == 0 else {
            close(fd)
            throw LibraryError(
                .storeBusy,
                "another pdfgate process (a serve or a convert) is running jobs on the store \(paths.root); send jobs to its API, wait for it to finish, or use another --store"
            )
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
