import Foundation
import GatewayCore

/// Why `JobIntake` refused a create, each with the words a client reads and a stable code. The
/// kind decides the HTTP status; nothing was stored.
public struct IntakeError: GatewayError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A field is missing or wrong (400).
        case invalid
        /// The file's extension is not one the job type converts (415).
        case unsupportedFormat
        /// The URL (page or callback) breaks the SSRF rules (422).
        case urlRefused
        /// Options that are each valid but contradict each other (422).
        case conflictingOptions
        /// No backend takes this job type (503).
        case noConverter
        /// The owner created too many jobs in the last minute (429).
        case rateLimited(retryAfterSeconds: Int)
        /// The owner has too many unfinished jobs (429).
        case tooManyJobs
        /// The key was used with another request (422).
        case idempotencyKeyReused
        /// The key's first request is still running (409).
        case idempotencyKeyInProgress
        /// The key's job is gone (404).
        case idempotencyJobGone
    }

    public var kind: Kind
    public var code: String
    public var message: String

    public init(_ kind: Kind, code: String, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }
}
