import Foundation

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
        try job(
            id: id,
            owner: owner,
            spec: decodeSpec(spec),
            state: decodeState(state),
            createdAt: createdAt,
            updatedAt: updatedAt,
            revision: revision,
            leaseNode: leaseNode,
            leaseExpires: leaseExpires
        )
    }

    /// The same, with the JSON columns already decoded.
    public static func job(
        id: UUID,
        owner: String,
        spec: JobSpec,
        state: JobStateMachine,
        createdAt: Date,
        updatedAt: Date,
        revision: Int,
        leaseNode: String?,
        leaseExpires: Date?
    ) -> Job {
        Job(
            id: id,
            owner: owner,
            spec: spec,
            state: state,
            createdAt: createdAt,
            updatedAt: updatedAt,
            revision: revision,
            lease: leaseNode.map { JobLease(node: $0, expires: leaseExpires ?? .distantPast) }
        )
    }

    public static func decodeSpec(_ text: String) throws -> JobSpec {
        try JSONDecoder().decode(JobSpec.self, from: Data(text.utf8))
    }

    public static func decodeState(_ text: String) throws -> JobStateMachine {
        try JSONDecoder().decode(JobStateMachine.self, from: Data(text.utf8))
    }
}
