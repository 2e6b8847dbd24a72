import Foundation
import GatewayProcess
import Synchronization

/// A running warm tool: what its slot starts, uses, and kills as one process group.
protocol WarmInstance: AnyObject, Sendable {
    var group: ProcessGroup { get }
}

/// The life of one warm slot's tool, shared by `WarmWorker` and `ChromiumBrowser`: which
/// instance runs, whether a caller is using it, and the interruptions and shutdown that may
/// come from other threads meanwhile. Whoever takes an instance out (`release`) reaps it.
final class WarmLife<Instance: WarmInstance>: Sendable {
    private let state = Mutex(State())

    private struct State {
        var instance: Instance?
        var interrupted = false
        var busy = false
        var isShutDown = false
        var starts = 0
    }

    /// Why no instance may start now.
    enum Refusal {
        case shutDown, interrupted
    }

    /// Clears a stale interruption; call before installing the cancellation handler.
    func prepare() {
        state.withLock { $0.interrupted = false }
    }

    /// Kills the running instance now; the blocked use sees `isInterrupted`.
    func interrupt() {
        state.withLock { state in
            state.interrupted = true
            state.instance?.group.stop(.cancellation)
        }
    }

    var isInterrupted: Bool { state.withLock { $0.interrupted } }
    var current: Instance? { state.withLock { $0.instance } }
    /// The running instance's process group id, if one is running.
    var processGroup: pid_t? { state.withLock { $0.instance?.group.id } }
    /// How many instances have been started.
    var startCount: Int { state.withLock { $0.starts } }

    /// Runs `body` as the slot's one user; an instance left over by a shutdown that came
    /// meanwhile goes to `retire` afterwards.
    func whileBusy<R: Sendable>(_ body: () async -> R, retire: (Instance) async -> Void) async -> R {
        state.withLock { $0.busy = true }
        let result = await body()
        let leftover = state.withLock { state -> Instance? in
            state.busy = false
            return state.isShutDown ? state.instance : nil
        }
        if let leftover { await retire(leftover) }
        return result
    }

    /// Why a new instance must not start, or nil.
    func refusal() -> Refusal? {
        state.withLock { state in state.isShutDown ? .shutDown : state.interrupted ? .interrupted : nil }
    }

    /// Records a freshly started instance; an interruption or shutdown that raced with its
    /// start still lands.
    func install(_ instance: Instance) {
        state.withLock { state in
            state.instance = instance
            state.starts += 1
            if state.interrupted || state.isShutDown { instance.group.stop(.cancellation) }
        }
    }

    /// Takes `instance` out if it is still the running one: true means the caller reaps it.
    func release(_ instance: Instance) -> Bool {
        state.withLock { state in
            guard state.instance === instance else { return false }
            state.instance = nil
            return true
        }
    }

    /// Refuses work from now on; kills a busy instance (its use sees `isInterrupted`). Returns
    /// an idle instance for the caller to end gracefully.
    func shutDown() -> Instance? {
        state.withLock { state in
            state.isShutDown = true
            if state.busy {
                state.interrupted = true
                state.instance?.group.stop(.shutdown)
                return nil
            }
            return state.instance
        }
    }
}
