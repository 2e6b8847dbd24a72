import Foundation
import GatewayEngine
import GatewayJobModel
import Synchronization

/// What `pdfgate convert` shows while its jobs run, on stderr: on a terminal one line per job
/// redrawn in place; elsewhere (logs, scripts) a line for every status or phase a job enters.
/// It listens to the engine's published changes, so a phase shorter than a redraw still shows.
final class JobProgress: Sendable {
    private struct Change {
        var id: UUID
        var state: String
        var elapsed: Duration
    }

    /// Filled by the engine's listener, which must not hold `self` (it is made before `self` is).
    private final class Log: Sendable {
        let changes = Mutex<[Change]>([])
        let start = ContinuousClock.now
    }

    private let log: Log
    private let live = isatty(STDERR_FILENO) == 1
    private let engine: JobEngine
    private let token: UUID
    /// Job id → the source it came from, as the user typed it.
    private let sources = Mutex<[UUID: String]>([:])
    /// Drawing state: which changes were printed, and how many lines a redraw moves up.
    private let printed = Mutex((count: 0, drawn: 0))

    /// Starts listening: make it before submitting the jobs, so their first changes are seen.
    init(engine: JobEngine) {
        self.engine = engine
        let log = Log()
        let start = log.start
        self.log = log
        token = engine.observeAll { job in
            let state = job.state.status.rawValue + (job.state.phase.map { " \($0.rawValue)" } ?? "")
            log.changes.withLock { $0.append(Change(id: job.id, state: state, elapsed: start.duration(to: .now))) }
        }
    }

    deinit { engine.stopObserving(token: token) }

    func track(_ id: UUID, source: String) {
        sources.withLock { $0[id] = (source as NSString).lastPathComponent }
    }

    /// Records each finished job's end if its listener has not delivered it yet (the job store
    /// may answer with the end a moment before the engine's listeners hear of it), then prints.
    func showEnds(of jobs: [Job]) {
        let start = log.start
        log.changes.withLock { changes in
            for job in jobs where job.state.status.isTerminal {
                let state = job.state.status.rawValue
                if !changes.contains(where: { $0.id == job.id && $0.state == state }) {
                    changes.append(Change(id: job.id, state: state, elapsed: start.duration(to: .now)))
                }
            }
        }
        show()
    }

    /// Prints what changed since the last call.
    func show() {
        let (all, names) = (log.changes.withLock { $0 }, sources.withLock { $0 })
        let mine = all.filter { names[$0.id] != nil }
        let text = printed.withLock { printed -> String in
            if live {
                // Each job's latest change; a finished job's time stays where it ended.
                var latest: [UUID: Change] = [:]
                for change in mine { latest[change.id] = change }
                let lines = names.keys.sorted { names[$0]! < names[$1]! }.compactMap { id in
                    latest[id].map { "\u{1B}[2K" + Self.line(names[id]!, $0) }
                }
                defer { printed.drawn = lines.count }
                return (printed.drawn > 0 ? "\u{1B}[\(printed.drawn)A" : "") + lines.map { $0 + "\n" }.joined()
            }
            defer { printed.count = mine.count }
            return mine.dropFirst(printed.count).map { Self.line(names[$0.id]!, $0) + "\n" }.joined()
        }
        if !text.isEmpty { FileHandle.standardError.write(Data(text.utf8)) }
    }

    private static func line(_ name: String, _ change: Change) -> String {
        let seconds = change.elapsed.inSeconds
        return "\(name): \(change.state) \(String(format: "%.1f", seconds))s"
    }
}
