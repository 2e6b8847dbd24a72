import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a thread of the gateway's own that `top -H`, `ps -L` and `/proc/<pid>/task/*/comm`
/// show by `name` (Linux keeps 15 bytes of it).
///
/// The thread names itself before `body` runs. Foundation's `Thread.name`, set from inside the
/// new thread, is dropped whenever that thread runs before `Thread.start()` has stored its
/// handle, which a busy machine makes common: the name is then missing, at random, from the one
/// place it is for (`NamedThreadTests`).
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    precondition(name.utf8.count <= 15, "Linux keeps 15 bytes of a thread's name: \(name)")
    let thread = Thread {
        nameThisThread(name)
        body()
    }
    thread.start()
}

/// Linux: a thread renames itself by writing its own `comm` file (proc(5)); Swift's Glibc
/// module exposes neither `pthread_setname_np` nor `prctl` (one needs `_GNU_SOURCE`, the other is
/// variadic).
private func nameThisThread(_ name: String) {
    #if canImport(Darwin)
    pthread_setname_np(name)
    #else
    let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard file >= 0 else { return }
    _ = name.withCString { write(file, $0, strlen($0)) }
    close(file)
    #endif
}
