import Foundation
import GatewayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells when children exit, for every child of the gateway, on one thread: each watched child
/// is a pidfd (Linux 5.3+), readable once the child has exited, and the thread sleeps in `poll`
/// on all of them at once. No thread is parked per child, and the child is not reaped, so its
/// pid (and process group id) stays ours until its owner reaps it.
///
/// Without pidfds (an old kernel, or a glibc before 2.36), the thread checks each watched child
/// with a non-reaping `waitid` every 50 ms instead.
package final class ExitMonitor: Sendable {
    package static let shared = ExitMonitor()

    /// One registration; `cancel` ends it.
    package struct Watch: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        var pid: pid_t
        /// The pidfd, or -1 when the child is checked by `waitid` instead.
        var descriptor: Int32
        /// Called once: true when the child exited, false when the watch was cancelled first.
        var onEnd: @Sendable (Bool) -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// pidfds of ended watches: closed by the monitor thread, which may be polling them.
        var toClose: [Int32] = []
        var threadStarted = false
    }

    private let state = Mutex(State())
    /// Poked to wake the thread when the set of watches changes.
    private let wake = WakePipe(for: "exit monitor")

    private init() {}

    /// Calls `onEnd(true)` once `pid`, an unreaped child of ours, has exited (it stays unreaped),
    /// or `onEnd(false)` if the watch is cancelled first. `onEnd` runs on the monitor's thread
    /// (or the cancelling one) and must not block.
    package func watch(_ pid: pid_t, _ onEnd: @escaping @Sendable (Bool) -> Void) -> Watch {
        let descriptor = Self.pidfdOpen.map { $0(pid, 0) } ?? -1
        let (watch, startsThread) = state.withLock { state in
            defer { state.nextID += 1 }
            state.entries[state.nextID] = Entry(pid: pid, descriptor: descriptor, onEnd: onEnd)
            defer { state.threadStarted = true }
            return (Watch(id: state.nextID), !state.threadStarted)
        }
        if startsThread {
            startThread(named: "pdfgate-exits") { [self] in run() }
        } else {
            wake.poke()
        }
        return watch
    }

    /// Ends a watch that has not fired yet: its `onEnd(false)` runs now. Returns false when it
    /// had already fired (or been cancelled).
    @discardableResult
    package func cancel(_ watch: Watch) -> Bool {
        let entry = state.withLock { state -> Entry? in
            guard let entry = state.entries.removeValue(forKey: watch.id) else { return nil }
            if entry.descriptor >= 0 { state.toClose.append(entry.descriptor) }
            return entry
        }
        guard let entry else { return false }
        wake.poke()
        entry.onEnd(false)
        return true
    }

    private func run() {
        while true {
            let (entries, toClose) = state.withLock { state in
                defer { state.toClose = [] }
                return (state.entries, state.toClose)
            }
            for descriptor in toClose { close(descriptor) }
            let polled = entries.filter { $0.value.descriptor >= 0 }.map { ($0.key, $0.value.descriptor) }
            let checked = entries.filter { $0.value.descriptor < 0 }.map { ($0.key, $0.value.pid) }
            var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            descriptors += polled.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), checked.isEmpty ? -1 : 50)
            if ready < 0 && errno != EINTR {
                // Only a bug (a closed descriptor) gets here; fall back to checking by waitid.
                usleep(50_000)
            }
            if descriptors[0].revents != 0 { wake.drain() }
            var exited = zip(polled, descriptors.dropFirst()).filter { $0.1.revents != 0 }.map { $0.0.0 }
            exited += checked.filter { Self.hasExited($0.1) }.map { $0.0 }
            guard !exited.isEmpty else { continue }
            let ended = state.withLock { state in
                exited.compactMap { id -> Entry? in
                    guard let entry = state.entries.removeValue(forKey: id) else { return nil }
                    if entry.descriptor >= 0 { state.toClose.append(entry.descriptor) }
                    return entry
                }
            }
            for entry in ended { entry.onEnd(true) }
        }
    }

    /// Whether `pid` has exited (or is no child of ours any more), without reaping it.
    static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        // With WNOHANG and nothing to report, Linux zero-fills si_signo (POSIX TC1 2013).
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
            if errno != EINTR { return true }
        }
        return info.si_signo != 0
    }

    /// glibc's `pidfd_open` (2.36+) is not in Swift's Glibc module; looked up at run time.
    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    private static let pidfdOpen: PidfdOpen? = dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) }
}
