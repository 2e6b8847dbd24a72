import Foundation
import GatewayJobModel
import Synchronization

/// Jobs as last written by this engine, so polls (the hot path of the API) skip the store and
/// JSON decoding. Correct because this engine is the only writer of its jobs; an engine sharing
/// its store with others has none (`limit` 0), since any of them may have written since.
final class JobCache: Sendable {
    private let jobs = Mutex<[UUID: Job]>([:])
    private let limit: Int

    init(limit: Int = 20_000) {
        self.limit = limit
    }

    subscript(id: UUID) -> Job? { jobs.withLock { $0[id] } }

    /// Keeps `job` as the latest version of its id.
    func remember(_ job: Job) {
        guard limit > 0 else { return }
        jobs.withLock { jobs in
            // Crude but bounded: past the limit, start over; misses only cost a store read.
            if jobs.count >= limit && jobs[job.id] == nil { jobs.removeAll(keepingCapacity: true) }
            jobs[job.id] = job
        }
    }

    /// Keeps `job` unless a newer write got there first (a read racing an update).
    func rememberIfAbsent(_ job: Job) {
        if self[job.id] == nil { remember(job) }
    }

    func forget(_ id: UUID) { _ = jobs.withLock { $0.removeValue(forKey: id) } }
}
