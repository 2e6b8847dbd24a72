import Foundation
import Synchronization

/// A job as every store writes it: the spec and the state machine whole as JSON, with the
/// values the scheduler's queries filter on copied out beside them. One mapping, so SQLite and
/// PostgreSQL rows say the same thing.
public struct StoredJob: Sendable {
    public var type: String
    public var status: String
    public var notBefore: Date?
    public var deadline: Date?
    public var spec: String
    public var state: String
    public var leaseNode: String?
    public var leaseExpires: Date?

    public init(_ job: Job) throws {
        type = job.spec.type.rawValue
        status = job.state.status.rawValue
        notBefore = job.state.notBefore
        deadline = job.state.deadline
        spec = String(decoding: try JSONEncoder().encode(job.spec), as: UTF8.self)
        state = String(decoding: try JSONEncoder().encode(job.state), as: UTF8.self)
        // Only a running job is leased, whatever the value says.
        let lease = job.state.status == .processing ? job.lease : nil
        leaseNode = lease?.node
        leaseExpires = lease?.expires
    }

    /// The job a row holds, from its columns.
    public static func job(
        id: UUID,
        owner: String,
        spec: String,
        state: String,
        createdAt: Date,
        updatedAt: Date,
        revision: Int,
        leaseNode: String?,
        leaseExpires: Date?
    ) throws -> Job {
        Job(
            id: id,
            owner: owner,
            spec: try specs.decoded(spec),
            state: try states.decoded(state),
            createdAt: createdAt,
            updatedAt: updatedAt,
            revision: revision,
            lease: leaseNode.map { JobLease(node: $0, expires: leaseExpires ?? .distantPast) }
        )
    }
}

extension StoredJob {
    /// The latest columns' decoded values. A job is read far more often than it changes (a
    /// client polls, a stream re-reads): on a shared database every poll reads the row again,
    /// and decoding its JSON cost more than the round trip. Equal text decodes to an equal value.
    fileprivate static let specs = DecodedColumns<JobSpec>()
    fileprivate static let states = DecodedColumns<JobStateMachine>()
}

/// A bounded memo from a JSON column's text to its decoded value.
private final class DecodedColumns<Value: Decodable & Sendable>: Sendable {
    private let values = Mutex<[String: Value]>([:])
    private let limit = 4_096

    func decoded(_ text: String) throws -> Value {
        if let value = values.withLock({ $0[text] }) { return value }
        let value = try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        values.withLock { values in
            if values.count >= limit { values.removeAll(keepingCapacity: true) }
            values[text] = value
        }
        return value
    }
}
