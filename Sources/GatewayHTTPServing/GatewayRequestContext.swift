import Hummingbird

/// The per-request context: Hummingbird's core plus the owner the auth middleware resolved.
public struct GatewayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware` for /v1 routes; nil on signed and operational routes.
    public var owner: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        owner = nil
    }

    /// JSON bodies only; uploads stream and have their own cap.
    public var maxUploadSize: Int { 1024 * 1024 }

    /// The owner, for routes behind `AuthMiddleware` (which always sets it).
    package func requireOwner() throws -> String {
        guard let owner else { throw APIError(.unauthorized, "unauthorized", "this route needs an owner; send Authorization: Bearer <token>") }
        return owner
    }
}
