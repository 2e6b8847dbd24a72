import Foundation
import GatewayJobModel
import Synchronization

/// The job types this node cannot run because their converter cannot start here: a sandbox the
/// kernel refuses, a tool or a library that is not installed. Marked when an attempt fails with
/// `FailureClass.cannotStart`, cleared when the converter's re-check passes.
///
/// While a type is out, a node that shares its store claims none of its jobs (another node may
/// run them); a node alone on its store refuses new ones at intake and fails the queued ones at
/// once, since nothing else will ever run them. `/readyz` names each outage.
public final class ConverterOutages: Sendable {
    /// One type's outage.
    public struct Outage: Sendable, Equatable {
        /// What the job that found it was told: the cause and its fix.
        public var failure: JobFailure
        /// When the engine next asks the converter whether it starts again.
        var nextCheck: Date
    }

    /// How long after a failed check the next one runs.
    public let recheckInterval: Duration
    private let outages = Mutex<[JobType: Outage]>([:])

    public init(recheckInterval: Duration = .seconds(30)) {
        self.recheckInterval = recheckInterval
    }

    /// Every type that is out now.
    public var current: [JobType: Outage] { outages.withLock { $0 } }

    /// Why jobs of `type` cannot run on this node, or nil.
    public func failure(for type: JobType) -> JobFailure? { outages.withLock { $0[type]?.failure } }

    /// Takes `type` out (or keeps it out with the newer reason) until a re-check passes.
    public func mark(_ type: JobType, _ failure: JobFailure, now: Date = Date()) {
        outages.withLock { $0[type] = Outage(failure: failure, nextCheck: now.addingTimeInterval(recheckInterval.inSeconds)) }
    }

    /// Puts `type` back in service.
    public func clear(_ type: JobType) { _ = outages.withLock { $0.removeValue(forKey: type) } }

    /// The types whose re-check is due at `now`. Each is next due a full interval later, so a
    /// check still running is not started again; its result marks or clears the type.
    func dueChecks(now: Date) -> [JobType] {
        outages.withLock { outages in
            let due = outages.filter { $0.value.nextCheck <= now }.map(\.key)
            for type in due { outages[type]?.nextCheck = now.addingTimeInterval(recheckInterval.inSeconds) }
            return due
        }
    }
}
