import Foundation
import GatewayJobModel
import GatewayLibraryModel
import Synchronization

/// Counters for `/metrics` (Prometheus text format 0.0.4). Jobs by status are read from the
/// store at scrape time, so they are right across restarts; the rest counts since start.
public final class GatewayMetrics: Sendable {
    /// Upper bounds of the job-duration histogram, in seconds.
    static let bounds: [Double] = [0.5, 1, 2, 5, 10, 30, 60, 120, 300]

    private struct State {
        var durationBuckets = [Int](repeating: 0, count: GatewayMetrics.bounds.count)
        var durationCount: [JobStatus: Int] = [:]
        var durationSum: [JobStatus: Double] = [:]
        var failures: [String: Int] = [:]
        var seenTerminal: Set<UUID> = []
        var uploads = 0
        var uploadBytes: Int64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Called with every published job change; counts each job once, when it ends. `backend` is
    /// the kind of converter its type is routed to (`local`, `gotenberg`, `gateway`).
    public func observe(_ job: Job, backend: String) {
        guard job.state.status.isTerminal else { return }
        state.withLock { state in
            guard state.seenTerminal.insert(job.id).inserted else { return }
            if state.seenTerminal.count > 100_000 { state.seenTerminal.removeAll() }
            let seconds = max(0, job.updatedAt.timeIntervalSince(job.createdAt))
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { state.durationBuckets[index] += 1 }
            state.durationCount[job.state.status, default: 0] += 1
            state.durationSum[job.state.status, default: 0] += seconds
            if job.state.status == .failed, let failure = job.state.failure {
                state.failures["\(backend)|\(failure.kind.rawValue)|\(failure.code)", default: 0] += 1
            }
        }
    }

    public func uploaded(bytes: Int64) {
        state.withLock { state in
            state.uploads += 1
            state.uploadBytes += bytes
        }
    }

    /// What the store and the engine say at scrape time.
    public struct Snapshot {
        public var jobsByStatus: [JobStatus: Int]
        public var queuedByType: [JobType: Int]
        /// This gateway's name: gateways sharing a database report the same queue, each its own
        /// takeovers.
        public var node: String
        public var leaseTakeovers: Int
        /// The search index's entries by state; nil where the store has no index.
        public var searchIndex: SearchIndexStatus?

        public init(
            jobsByStatus: [JobStatus: Int],
            queuedByType: [JobType: Int],
            node: String,
            leaseTakeovers: Int,
            searchIndex: SearchIndexStatus? = nil
        ) {
            (self.jobsByStatus, self.queuedByType, self.node, self.leaseTakeovers) = (jobsByStatus, queuedByType, node, leaseTakeovers)
            self.searchIndex = searchIndex
        }
    }

    /// The exposition text.
    public func render(_ snapshot: Snapshot) -> String {
        let state = state.withLock { $0 }
        let jobsByStatus = snapshot.jobsByStatus
        let node = snapshot.node.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        var lines: [String] = []
        lines.append("# HELP pdfgate_jobs Jobs in the store by status.")
        lines.append("# TYPE pdfgate_jobs gauge")
        for status in JobStatus.allCases { lines.append("pdfgate_jobs{status=\"\(status.rawValue)\"} \(jobsByStatus[status] ?? 0)") }
        lines.append("# HELP pdfgate_queue_depth Queued jobs by type (the whole cluster's, as this node reads the shared store).")
        lines.append("# TYPE pdfgate_queue_depth gauge")
        for type in JobType.allCases {
            lines.append("pdfgate_queue_depth{type=\"\(type.rawValue)\",node=\"\(node)\"} \(snapshot.queuedByType[type] ?? 0)")
        }
        lines.append("# HELP pdfgate_lease_takeovers_total Jobs this node resumed for nodes whose leases lapsed, since start.")
        lines.append("# TYPE pdfgate_lease_takeovers_total counter")
        lines.append("pdfgate_lease_takeovers_total{node=\"\(node)\"} \(snapshot.leaseTakeovers)")
        if let index = snapshot.searchIndex {
            // The backfill's progress: pending falls to 0 once every document's text is read.
            lines.append("# HELP pdfgate_search_index_documents Documents in the search index by state (pending: text not read yet).")
            lines.append("# TYPE pdfgate_search_index_documents gauge")
            for (state, count) in [("pending", index.pending), ("ready", index.ready), ("failed", index.failed)] {
                lines.append("pdfgate_search_index_documents{state=\"\(state)\"} \(count)")
            }
        }
        lines.append("# HELP pdfgate_job_duration_seconds Creation to terminal state, for jobs finished since start.")
        lines.append("# TYPE pdfgate_job_duration_seconds histogram")
        for (index, bound) in Self.bounds.enumerated() {
            lines.append("pdfgate_job_duration_seconds_bucket{le=\"\(bound)\"} \(state.durationBuckets[index])")
        }
        let total = state.durationCount.values.reduce(0, +)
        lines.append("pdfgate_job_duration_seconds_bucket{le=\"+Inf\"} \(total)")
        lines.append("pdfgate_job_duration_seconds_sum \(state.durationSum.values.reduce(0, +))")
        lines.append("pdfgate_job_duration_seconds_count \(total)")
        lines.append("# HELP pdfgate_job_failures_total Failed jobs since start by backend, failure class and code.")
        lines.append("# TYPE pdfgate_job_failures_total counter")
        for (key, count) in state.failures.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 2).map(String.init)
            guard parts.count == 3 else { continue }
            lines.append("pdfgate_job_failures_total{backend=\"\(parts[0])\",kind=\"\(parts[1])\",code=\"\(parts[2])\"} \(count)")
        }
        lines.append("# HELP pdfgate_uploads_total Completed uploads since start.")
        lines.append("# TYPE pdfgate_uploads_total counter")
        lines.append("pdfgate_uploads_total \(state.uploads)")
        lines.append("# HELP pdfgate_upload_bytes_total Bytes received in completed uploads since start.")
        lines.append("# TYPE pdfgate_upload_bytes_total counter")
        lines.append("pdfgate_upload_bytes_total \(state.uploadBytes)")
        return lines.joined(separator: "\n") + "\n"
    }
}
