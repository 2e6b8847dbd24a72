import Foundation
import GatewayCore

/// Where a job's input waits for its conversion and where its attempts work: the one owner of
/// the staging area. Routes, the CLI and the engine ask it for places; none of them builds a
/// staging path. `StagingArea` in GatewayStore keeps it on disk beside the library.
public protocol InputStaging: Sendable {
    /// Makes room for a job's input; called before the job's row is written, so a job that
    /// exists always has somewhere to receive its file.
    func prepare(jobID: UUID) throws

    /// A fresh path for a request body that arrives before its job exists (a one-shot create, a
    /// document import). The caller removes it with `discardIncoming` when done; `sweep` removes
    /// what a killed process left.
    func incomingPath() -> String
    func discardIncoming(_ path: String)

    /// A fresh path to stream the job's upload into; `publishInput` then makes it the input.
    func partialInputPath(for job: Job) -> String

    /// Makes `file` the job's input — or, for a job with several (`JobSpec.inputs`), its input
    /// number `part` — moved (or copied, for a file the caller keeps) in whole, so a crash
    /// mid-way leaves no input. Once only: a job that has its input already refuses a second
    /// with `StagingError.inputExists`, on any process sharing the area.
    func publishInput(_ file: String, for job: Job, part: Int?, copying: Bool) throws(StagingError)

    /// Keeps the job's passwords beside its input, readable by this user only, until `remove`.
    func publishSecrets(_ secrets: JobSecrets, jobID: UUID) throws(StagingError)

    /// What `publishSecrets` kept; empty when nothing was.
    func secrets(jobID: UUID) -> JobSecrets

    /// The job's published input, for the converter; `part` picks one of several.
    func inputPath(for job: Job, part: Int?) -> String

    /// A fresh, empty directory for the job's current attempt, where the converter writes.
    func attemptDirectory(for job: Job) throws(StagingError) -> String

    /// Drops everything the job staged (it ended).
    func remove(jobID: UUID)

    /// Removes what a killed process left: entries last changed before `before` that are not an
    /// unfinished job's (`isUnfinished` answers for a job id; when it throws, the entry stays).
    /// Returns how many went.
    func sweep(changedBefore before: Date, isUnfinished: (UUID) async throws -> Bool) async -> Int

    /// Makes what job `jobID` staged on this node (its inputs, its secrets) reachable from every
    /// node; where nodes share the folder there is nothing to do. A second input for a job that
    /// has one, staged on another node, is `StagingError.inputExists`.
    func share(jobID: UUID) async throws(StagingError)
    /// Brings here what the job staged on other nodes, before an attempt reads it.
    func gather(for job: Job) async throws(StagingError)
    /// Removes what ended jobs shared, staged before `before` (`isUnfinished` as for `sweep`);
    /// how many went.
    func sweepShared(changedBefore before: Date, isUnfinished: (UUID) async throws -> Bool) async -> Int
}

extension InputStaging {
    public func share(jobID: UUID) async throws(StagingError) {}
    public func gather(for job: Job) async throws(StagingError) {}
    public func sweepShared(changedBefore before: Date, isUnfinished: (UUID) async throws -> Bool) async -> Int { 0 }

    /// The input of a job that has one.
    public func inputPath(for job: Job) -> String { inputPath(for: job, part: nil) }

    public func publishInput(_ file: String, for job: Job, copying: Bool) throws(StagingError) {
        try publishInput(file, for: job, part: nil, copying: copying)
    }

    /// Runs `body` with an incoming path and removes whatever is left there afterwards.
    public func withIncomingFile<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = incomingPath()
        defer { discardIncoming(path) }
        return try await body(path)
    }
}

/// Staging could not do what was asked.
public struct StagingError: GatewayError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The job has its input already: an upload URL works once.
        case inputExists
        /// The disk refused (full, permissions, a missing directory).
        case storage
        /// The shared storage staged inputs go through (a bucket) does not answer now.
        case unavailable
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var code: String {
        switch kind {
        case .inputExists: "already_uploaded"
        case .storage: "storage_error"
        case .unavailable: "storage_unavailable"
        }
    }
}
