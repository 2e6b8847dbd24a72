import Foundation
import GatewayStore
import Hummingbird
import Synchronization

/// Resolves the request's owner: `default` in no-auth mode, else the owner of the bearer token.
/// A missing or unknown token is a 401 that says how to get one.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let mode: ServerConfiguration.AuthMode
    let tokens: any APITokens
    let cache: TokenCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        switch mode {
        case .none:
            context.owner = "default"
        case .tokens:
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                throw APIError(
                    .unauthorized,
                    "unauthorized",
                    "send Authorization: Bearer <token>; an administrator creates one with `pdfgate token create --owner NAME`",
                    headers: [.wwwAuthenticate: "Bearer"]
                )
            }
            let secret = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            guard let owner = try cache.owner(for: secret, lookup: { try tokens.owner(forSecret: $0) }) else {
                throw APIError(
                    .unauthorized,
                    "invalid_token",
                    "the bearer token is unknown or revoked; ask for a new one",
                    headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""]
                )
            }
            context.owner = owner
        }
        context.logger[metadataKey: "owner"] = "\(context.owner ?? "-")"
        return try await next(request, context)
    }
}

/// Remembers token lookups for a few seconds: a poll every second per client would otherwise
/// be a database read each. Revocation takes effect within `lifetime`.
final class TokenCache: Sendable {
    private let entries = Mutex<[String: (owner: String?, expires: ContinuousClock.Instant)]>([:])
    let lifetime: Duration

    init(lifetime: Duration = .seconds(5)) {
        self.lifetime = lifetime
    }

    func owner(for secret: String, lookup: (String) throws -> String?) throws -> String? {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[secret] }), entry.expires > now { return entry.owner }
        let owner = try lookup(secret)
        entries.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }  // bounded: junk tokens cannot grow it forever
            entries[secret] = (owner, now + lifetime)
        }
        return owner
    }
}
