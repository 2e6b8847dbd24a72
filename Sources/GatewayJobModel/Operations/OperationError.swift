import GatewayCore

/// Why an operation on a PDF was refused, with a stable code and words that say what to change.
/// The kind decides the HTTP status (400 for a malformed request, 422 for one that does not fit
/// its document); nothing is filed and no document changes.
public struct OperationError: GatewayError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The request is malformed: an unknown operation or field, a wrong type (400).
        case invalid
        /// Well formed, but it contradicts itself or its document: a page past the end,
        /// split twice, a missing or wrong password (422).
        case outOfRange
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
