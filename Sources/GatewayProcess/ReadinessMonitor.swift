import Foundation
import GatewayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Awaits "there is something to read" on descriptors (a child's pipe or socket) for every
/// caller in the process, on one thread sleeping in `poll` on all of them: a conversation with a
/// child (Chromium's DevTools pipe) waits for its next message without holding a thread, whether
/// it is the pool's or one of its own.
///
/// A wait ends when the descriptor is readable (or at its end of file, or hung up) or at its
/// deadline, not when the awaiting task is cancelled: callers wait in short slices and cut a
/// conversation by killing the child, which closes its end.
package final class ReadinessMonitor: Sendable {
    package static let shared = ReadinessMonitor()

    private struct Waiter {
        var descriptor: Int32
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var threadStarted = false
    }

    private let state = Mutex(State())
    /// Poked to wake the thread when a wait comes in.
    private let wake = WakePipe(for: "readiness monitor")

    private init() {}

    /// True once `descriptor` has something to read (or has been closed at the other end), false
    /// at `deadline`.
    package func readable(_ descriptor: Int32, until deadline: ContinuousClock.Instant) async -> Bool {
        guard ContinuousClock.now < deadline else { return false }
        return await withCheckedContinuation { continuation in
            let startsThread = state.withLock { state -> Bool in
                state.waiters[state.nextID] = Waiter(descriptor: descriptor, deadline: deadline, continuation: continuation)
                state.nextID += 1
                defer { state.threadStarted = true }
                return !state.threadStarted
            }
            if startsThread {
                startThread(named: "pdfgate-pipes") { [self] in run() }
            } else {
                wake.poke()
            }
        }
    }

    private func run() {
        while true {
            let (ids, descriptors, timeout) = state.withLock { state -> ([UInt64], [pollfd], Int32) in
                let waiting = Array(state.waiters)
                let ids = waiting.map(\.key)
                let descriptors = waiting.map { pollfd(fd: $0.value.descriptor, events: Int16(POLLIN), revents: 0) }
                guard let nearest = state.waiters.values.map(\.deadline).min() else { return (ids, descriptors, -1) }
                let left = ContinuousClock.now.duration(to: nearest)
                guard left > .zero else { return (ids, descriptors, 0) }
                let (seconds, attoseconds) = left.components
                return (ids, descriptors, Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000)))
            }
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)] + descriptors
            let count = poll(&polled, nfds_t(polled.count), timeout)
            if count < 0 && errno != EINTR { continue }
            if polled[0].revents != 0 { wake.drain() }
            let now = ContinuousClock.now
            let ended = state.withLock { state -> [(CheckedContinuation<Bool, Never>, Bool)] in
                var ended: [(CheckedContinuation<Bool, Never>, Bool)] = []
                // Readable, at its end, hung up or not open (POLLNVAL): the caller's read says which.
                for (id, polled) in zip(ids, polled.dropFirst()) where polled.revents != 0 {
                    if let waiter = state.waiters.removeValue(forKey: id) { ended.append((waiter.continuation, true)) }
                }
                for (id, waiter) in state.waiters where waiter.deadline <= now {
                    state.waiters[id] = nil
                    ended.append((waiter.continuation, false))
                }
                return ended
            }
            for (continuation, readable) in ended { continuation.resume(returning: readable) }
        }
    }
}
