import GatewayCore

/// A failed S3 request, classified by what the caller can do about it.
public struct S3Error: GatewayError, Equatable {
    public enum Kind: String, Sendable {
        /// The server did not answer, or answered 5xx, 429 or `SlowDown`: retry later.
        case unavailable = "storage_unavailable"
        /// The keys are wrong or lack permission (403: `InvalidAccessKeyId`, `SignatureDoesNotMatch`, `AccessDenied`).
        case denied = "storage_access_denied"
        /// The bucket does not exist.
        case noSuchBucket = "storage_bucket_not_found"
        /// The object does not exist.
        case noSuchKey = "storage_object_not_found"
        /// Anything else: a request the server refused for another reason.
        case failed = "storage_failed"
    }

    public var kind: Kind
    /// S3's own error code (`NoSuchBucket`, `SignatureDoesNotMatch`…) when the server gave one.
    public var s3Code: String?
    public var message: String
    public var code: String { kind.rawValue }
    /// Whether the same request may succeed later.
    public var isTransient: Bool { kind == .unavailable }

    public init(_ kind: Kind, s3Code: String? = nil, _ message: String) {
        self.kind = kind
        self.s3Code = s3Code
        self.message = message
    }

    /// The class of an error answer, from its status and S3's code.
    static func classify(status: Int, s3Code: String?) -> Kind {
        switch (status, s3Code) {
        case (_, "NoSuchBucket"): .noSuchBucket
        case (_, "NoSuchKey"): .noSuchKey
        case (_, "SlowDown"), (429, _), (500...599, _): .unavailable
        case (401, _), (403, _): .denied
        default: .failed
        }
    }
}
