import GatewayCore

/// Why a file could not be inspected as a PDF.
public struct InspectionError: GatewayError, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The bytes are not a PDF at all (no `%PDF-` header).
        case notAPDF = "not_a_pdf"
        /// Needs a password we do not have.
        case encrypted
        /// Starts like a PDF but is truncated or broken beyond repair.
        case damaged
        /// Inspection did not finish within its wall-clock limit.
        case timedOut = "timed_out"
        /// Poppler ran out of its memory cap or crashed on this file.
        case resourceLimit = "resource_limit"
        /// The file could not be read at all (missing, permissions).
        case unreadable
        /// The inspector itself is broken (worker missing or failing to start).
        case inspectorUnavailable = "inspector_unavailable"
    }

    public var kind: Kind
    public var message: String
    public var code: String { kind.rawValue }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
