import CCurl
import Foundation
import GatewayCore
import Synchronization

/// One libcurl multi handle and the one thread that drives it: every transfer of every
/// `HTTPClient` on this loop, so a thousand exchanges in flight cost one thread, not a thousand,
/// and share libcurl's connection and DNS caches.
///
/// The loop owns its thread. It starts it on the first transfer; the thread then holds the loop
/// until `shutdown()`, so a loop in use never goes away underneath its transfers. The thread sleeps
/// in `curl_multi_poll` while nothing is in flight. Callers hand transfers over through a locked
/// inbox and wake the thread with `curl_multi_wakeup`, the one libcurl call allowed from other
/// threads; every other `curl_multi_*` and `curl_easy_*` call, and every callback, happens on the
/// loop's thread. `shared` serves the whole process until its last moments, when the service
/// group stops it (`HTTPClient.shutdownSharedLoop()`).
final class TransferLoop: Sendable {
    /// The process's loop, used by every `HTTPClient` unless one is given another.
    static let shared = TransferLoop()

    private let multi: MultiHandle
    /// Whether `curl_multi_wakeup` works: without its socket pair (no descriptor left when the
    /// loop was created) arrivals are only noticed at the next poll timeout, so that gets short.
    private let canWake: Bool
    private let inbox = Mutex(Inbox())

    init() {
        CurlGlobal.initialize()
        guard let raw = curl_multi_init() else { fatalError("libcurl could not create a multi handle (out of memory)") }
        multi = MultiHandle(raw: raw)
        // Also proves the socket pair exists; the poll it cuts short is the thread's first, harmless.
        canWake = curl_multi_wakeup(raw) == CURLM_OK
    }

    deinit {
        // A running thread keeps the loop alive, so here it either never started or has already
        // cleaned the handle up on its way out.
        if inbox.withLock({ $0.state }) == .idle { curl_multi_cleanup(multi.raw) }
    }

    /// Hands `transfer` to the loop's thread, starting the thread if it is the first; the
    /// continuation is resumed there once the exchange ended.
    func submit(_ transfer: PendingTransfer) {
        let accepted = inbox.withLock { inbox in
            switch inbox.state {
            case .stopping, .stopped:
                return false
            case .idle:
                inbox.state = .running
                startThread(named: "pdfgate-http") { [self] in drive() }
            case .running:
                break
            }
            inbox.arrivals.append(transfer)
            _ = curl_multi_wakeup(multi.raw)
            return true
        }
        if !accepted { transfer.continuation.resume(with: transfer.transfer.abandoned(Self.shutDown, context: transfer.context)) }
    }

    /// Aborts the transfer of `context` at once, if it has not ended yet; callable from any thread,
    /// any number of times, also before the transfer was submitted.
    func cancel(_ context: TransferContext) {
        // The flag covers a transfer not yet started: the loop checks it before starting one.
        context.cancelled.store(true, ordering: .releasing)
        inbox.withLock { inbox in
            guard inbox.state == .running else { return }
            inbox.cancellations.append(context)
            _ = curl_multi_wakeup(multi.raw)
        }
    }

    /// Stops the loop and returns once its thread has exited: transfers in flight, and any
    /// submitted from now on, fail with `HTTPClientError.Kind.other`. Calling it again is harmless.
    func shutdown() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = inbox.withLock { inbox in
                switch inbox.state {
                case .idle:
                    // No thread ever ran, so nobody else can touch the handle any more.
                    inbox.state = .stopped
                    curl_multi_cleanup(multi.raw)
                    return true
                case .stopped:
                    return true
                case .running, .stopping:
                    inbox.state = .stopping
                    inbox.stopWaiters.append(done)
                    _ = curl_multi_wakeup(multi.raw)
                    return false
                }
            }
            if finished { done.resume() }
        }
    }

    /// Why transfers fail once `shutdown()` was called.
    static let shutDown = TransferFailure(.other, "the HTTP client's transfer loop has shut down")

    // MARK: the loop's thread

    private func drive() {
        let driver = LoopDriver(multi: multi.raw, idlePollMilliseconds: canWake ? 60_000 : 50)
        while true {
            let (arrivals, cancellations, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.arrivals = []
                    inbox.cancellations = []
                }
                return (inbox.arrivals, inbox.cancellations, inbox.state == .stopping)
            }
            if stopping {
                for transfer in arrivals { transfer.continuation.resume(with: transfer.transfer.abandoned(Self.shutDown, context: transfer.context)) }
                driver.abandonAll(Self.shutDown)
                break
            }
            for transfer in arrivals { driver.start(transfer) }
            for context in cancellations { driver.cancel(context) }
            driver.turn()
        }
        // `submit` refuses transfers once the state is `stopping`, so none can have arrived since.
        let waiters = inbox.withLock { inbox in
            // Under the lock, so no caller wakes the handle once it is being cleaned up.
            inbox.state = .stopped
            defer { inbox.stopWaiters = [] }
            return inbox.stopWaiters
        }
        curl_multi_cleanup(multi.raw)
        for waiter in waiters { waiter.resume() }
    }
}

/// A transfer on its way to the loop: what to do, its callbacks' state, and whom to tell.
struct PendingTransfer: Sendable {
    var transfer: Transfer
    var context: TransferContext
    var continuation: CheckedContinuation<HTTPResponse, any Error>
}

/// What callers and the loop's thread share, always under the lock.
private struct Inbox {
    enum State {
        /// No thread yet: it starts with the first transfer.
        case idle
        case running
        /// `shutdown()` was called; the thread fails what is left and exits.
        case stopping
        /// The thread has exited and the multi handle is gone: no more wake-ups.
        case stopped
    }

    var state = State.idle
    var arrivals: [PendingTransfer] = []
    var cancellations: [TransferContext] = []
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
}

/// The multi handle as other threads see it. `@unchecked Sendable` is safe because the only call
/// made on it off the loop's thread is `curl_multi_wakeup`, which libcurl documents as callable
/// from any thread, always under the inbox's lock and never once the state is `stopped`.
private struct MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// The transfers in flight, known only to the loop's thread.
private final class LoopDriver {
    private struct Active {
        var pending: PendingTransfer
        var easy: CurlEasy
        var started: ContinuousClock.Instant
    }

    private let multi: UnsafeMutableRawPointer
    private let idlePollMilliseconds: Int32
    private var active: [ObjectIdentifier: Active] = [:]
    /// Which transfer a finished easy handle belongs to, as `curl_multi_info_read` names handles.
    private var owners: [UnsafeMutableRawPointer: ObjectIdentifier] = [:]

    init(multi: UnsafeMutableRawPointer, idlePollMilliseconds: Int32) {
        self.multi = multi
        self.idlePollMilliseconds = idlePollMilliseconds
    }

    /// Configures a handle for `pending` and adds it to the multi handle, or ends it at once when
    /// it was cancelled already or cannot start (a bad URL, a missing body file).
    func start(_ pending: PendingTransfer) {
        if pending.context.isCancelled {
            return pending.continuation.resume(with: pending.transfer.abandoned(CancellationError(), context: pending.context))
        }
        let started = ContinuousClock.now
        let easy: CurlEasy
        do {
            easy = try pending.transfer.makeHandle(context: pending.context)
        } catch {
            return pending.continuation.resume(with: pending.transfer.abandoned(error, context: pending.context))
        }
        let added = curl_multi_add_handle(multi, easy.handle)
        guard added == CURLM_OK else {
            let failure = TransferFailure(.other, "libcurl: \(String(cString: curl_multi_strerror(added)))")
            return pending.continuation.resume(with: pending.transfer.abandoned(failure, context: pending.context))
        }
        let key = ObjectIdentifier(pending.context)
        active[key] = Active(pending: pending, easy: easy, started: started)
        owners[easy.handle] = key
    }

    /// Removes the transfer of `context` from the multi handle, which closes its connection, and
    /// fails it with `CancellationError`; nothing if it has already ended.
    func cancel(_ context: TransferContext) {
        guard let entry = remove(ObjectIdentifier(context)) else { return }
        entry.pending.continuation.resume(with: entry.pending.transfer.abandoned(CancellationError(), context: context))
    }

    /// Fails every transfer in flight with `failure`.
    func abandonAll(_ failure: TransferFailure) {
        for key in Array(active.keys) {
            guard let entry = remove(key) else { continue }
            entry.pending.continuation.resume(with: entry.pending.transfer.abandoned(failure, context: entry.pending.context))
        }
    }

    /// Lets libcurl move every transfer forward, completes those that ended, and sleeps until a
    /// socket is ready, libcurl's next timer is due, or a caller wakes the loop.
    func turn() {
        var running: Int32 = 0
        let performed = curl_multi_perform(multi, &running)
        if performed != CURLM_OK { failEverything(performed) }
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            // Read before the handle is removed: removing it frees the message.
            let code = pdfgate_curl_msg_result(message)
            guard let key = owners[handle], let entry = remove(key) else { continue }
            let elapsed = ContinuousClock.now - entry.started
            let outcome = entry.pending.transfer.outcome(of: code, easy: entry.easy, context: entry.pending.context, elapsed: elapsed)
            entry.pending.continuation.resume(with: outcome)
        }
        // libcurl shortens the wait to its own next timer, so the idle timeout only bounds a sleep
        // with nothing in flight; arrivals and cancellations end it through `curl_multi_wakeup`.
        let polled = curl_multi_poll(multi, nil, 0, idlePollMilliseconds, nil)
        if polled != CURLM_OK {
            failEverything(polled)
            // Whatever broke the poll may last; a pause keeps the thread from spinning on it.
            usleep(10_000)
        }
    }

    /// The multi handle itself failed (out of memory, `poll` refused): no transfer in it can be
    /// trusted to progress, so all of them fail rather than hang.
    private func failEverything(_ code: CURLMcode) {
        abandonAll(TransferFailure(.other, "libcurl: \(String(cString: curl_multi_strerror(code)))"))
    }

    /// Takes a transfer out of the multi handle and the tables; its easy handle is freed with the
    /// returned entry, after the caller has read what it needs.
    private func remove(_ key: ObjectIdentifier) -> Active? {
        guard let entry = active.removeValue(forKey: key) else { return nil }
        owners[entry.easy.handle] = nil
        curl_multi_remove_handle(multi, entry.easy.handle)
        return entry
    }
}
