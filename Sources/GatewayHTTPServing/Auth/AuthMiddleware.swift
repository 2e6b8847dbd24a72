import Foundation
import GatewayLibraryModel
import GatewaySettings
import Hummingbird
import Logging
import Synchronization

/// Resolves the request's owner: `default` in no-auth mode, else the owner of the bearer token.
/// A missing or unknown token is a 401 that says how to get one.
package struct AuthMiddleware: RouterMiddleware {
    package typealias Context = GatewayRequestContext

    let mode: ServerConfiguration.AuthMode
    let tokens: any APITokens
    let cache: TokenCache
    /// Gotenberg's Basic-auth credentials (`GOTENBERG_API_BASIC_AUTH_*`), accepted beside the
    /// tokens for the owner named by their user name.
    var basic: BasicCredentials? = nil
    /// The scheme a 401 names (`WWW-Authenticate`): Bearer for the API, so a browser running the
    /// web page never shows a password prompt of its own; Basic where file managers sign in.
    let challenge: Challenge

    package enum Challenge: Sendable {
        case bearer
        case basic

        var missing: String {
            switch self {
            case .bearer: "Bearer"
            case .basic: #"Basic realm="PDF Gateway", charset="UTF-8""#
            }
        }

        var invalid: String {
            switch self {
            case .bearer: #"Bearer error="invalid_token""#
            case .basic: missing
            }
        }
    }

    package init(
        mode: ServerConfiguration.AuthMode,
        tokens: any APITokens,
        cache: TokenCache,
        basic: BasicCredentials? = nil,
        challenge: Challenge = .bearer
    ) {
        self.mode = mode
        self.tokens = tokens
        self.cache = cache
        self.basic = basic
        self.challenge = challenge
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        switch mode {
        case .none:
            context.owner = "default"
        case .tokens:
            if let basic, let header = request.headers[.authorization], Self.matches(header, basic) {
                context.owner = basic.username
                break
            }
            guard let secret = request.headers[.authorization].flatMap(Self.secret(from:)) else {
                throw APIError(
                    .unauthorized,
                    "unauthorized",
                    "send Authorization: Bearer <token> (or the token as a Basic-auth password); an administrator creates one with `pdfgate token create --owner NAME`",
                    headers: [.wwwAuthenticate: challenge.missing]
                )
            }
            guard let owner = try await cache.owner(for: secret, lookup: { try await tokens.owner(forSecret: $0) }) else {
                throw APIError(
                    .unauthorized,
                    "invalid_token",
                    "the bearer token is unknown or revoked; ask for a new one",
                    headers: [.wwwAuthenticate: challenge.invalid]
                )
            }
            context.owner = owner
        }
        return try await RequestOwner.$current.withValue(context.owner) { try await next(request, context) }
    }

    /// Whether `header` carries exactly these Basic credentials, compared in constant time.
    static func matches(_ header: String, _ credentials: BasicCredentials) -> Bool {
        let encoded = String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        guard header.prefix(6).lowercased() == "basic ", let decoded = Data(base64Encoded: encoded) else { return false }
        let expected = Array("\(credentials.username):\(credentials.password)".utf8)
        let given = Array(decoded)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    /// The token of `Authorization: Bearer <token>`, or the password of `Basic` credentials:
    /// Gotenberg's clients know only basic auth, and any user name goes with a token.
    static func secret(from header: String) -> String? {
        let (scheme, rest) = (header.prefix { $0 != " " }.lowercased(), header.drop { $0 != " " }.trimmingCharacters(in: .whitespaces))
        switch scheme {
        case "bearer": return rest.isEmpty ? nil : rest
        case "basic":
            guard let decoded = Data(base64Encoded: rest).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":")
            else { return nil }
            let password = String(decoded[decoded.index(after: colon)...])
            return password.isEmpty ? nil : password
        default: return nil
        }
    }
}

/// The owner a request runs for, as log metadata (`owner=`) on whatever its handlers log.
/// A task-local read when a line is written rather than metadata set on every request's
/// logger: swift-log's stream handler re-renders all of a logger's metadata each time a key
/// is set, which cost a poll more than checking its token.
public enum RequestOwner {
    @TaskLocal static var current: String?

    /// Give the server's logger this provider (`Logger(label:metadataProvider:)`).
    public static let metadataProvider = Logger.MetadataProvider {
        current.map { ["owner": .string($0)] } ?? [:]
    }
}

/// Remembers token lookups for a few seconds: a poll every second per client would otherwise
/// be a database read each. Revocation takes effect within `lifetime`.
package final class TokenCache: Sendable {
    private let entries = Mutex<[String: (owner: String?, expires: ContinuousClock.Instant)]>([:])
    let lifetime: Duration

    package init(lifetime: Duration = .seconds(5)) {
        self.lifetime = lifetime
    }

    func owner(for secret: String, lookup: (String) async throws -> String?) async throws -> String? {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[secret] }), entry.expires > now { return entry.owner }
        let owner = try await lookup(secret)
        entries.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }  // bounded: junk tokens cannot grow it forever
            entries[secret] = (owner, now + lifetime)
        }
        return owner
    }
}
