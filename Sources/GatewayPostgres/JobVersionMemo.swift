import Foundation
import GatewayJobModel

/// The last row of each unfinished job this process wrote, with the `row_version` it left:
/// an update starts from it and writes back over that version, one round trip instead of a
/// read and a write. The version check keeps it safe: when another node (or another thread)
/// wrote in between, the write matches no row and the update reads the row afresh, as it
/// would have without the memo. A job drops out when it ends.
final class JobVersionMemo: Sendable {
    struct Entry: Sendable {
        var job: Job
        var version: Int64
    }

    private let entries = BoundedMemo<Entry>()

    subscript(id: UUID) -> Entry? { entries[id] }

    /// Remembers what was just written; a finished job is forgotten (few of its changes follow,
    /// and those can afford a read).
    func wrote(_ job: Job, version: Int64) {
        entries[job.id] = job.state.status.isTerminal ? nil : Entry(job: job, version: version)
    }

    /// A lease renewal moved the row: the remembered job now has `lease`, at `version`.
    func renewed(_ id: UUID, lease: JobLease, version: Int64) {
        entries.change(id) { entry in
            entry.job.lease = lease
            entry.version = version
        }
    }

    /// The row changed in a way this process cannot follow: the next update reads it.
    func forget(_ id: UUID) { entries[id] = nil }
}
