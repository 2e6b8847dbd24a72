import Hummingbird

/// Registers routes and remembers them as OpenAPI spells them (`GET /v1/jobs/{id}`), so a test
/// can hold the router against `openapi.yaml`: Hummingbird's router does not list its routes.
public struct RouteTable: Sendable {
    public private(set) var entries: [String] = []
    private var methodsByPath: [String: [HTTPRequest.Method]] = [:]

    /// The methods a client may try on any path: RFC 9110's, PATCH, and QUERY (the draft safe
    /// method with a body). CONNECT is left out: its target is a host, never one of our paths.
    static let knownMethods: [HTTPRequest.Method] = [
        .get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]

    /// Answers a method a path does not have with 405 and an `Allow` header, instead of the
    /// router's 404, which would tell a client its URL is wrong when only its verb is; and
    /// `OPTIONS` with 204 and the same `Allow`. Call after every route is added; these are not
    /// API routes, so not in `entries`.
    func addMethodNotAllowed(to router: Router<GatewayRequestContext>) {
        for (path, methods) in methodsByPath {
            // Hummingbird answers HEAD wherever there is a GET (the same answer without a body).
            var allowed = methods
            if methods.contains(.get) { allowed.append(.head) }
            allowed.append(.options)
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            let local = RouterPath(Self.hummingbirdPath(path))
            router.on(local, method: .options) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
            for verb in Self.knownMethods where !allowed.contains(verb) {
                router.on(local, method: verb) { request, _ -> Response in
                    throw APIError(
                        .methodNotAllowed,
                        "method_not_allowed",
                        "\(request.method.rawValue) is not supported on \(path); use \(allow)",
                        headers: [.allow: allow]
                    )
                }
            }
        }
    }

    /// OpenAPI `{id}` → Hummingbird `:id`.
    private static func hummingbirdPath(_ path: String) -> String {
        path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
    }

    /// Adds `method path` (OpenAPI form) to `group`, whose prefix must be `group`'s own.
    mutating func add(
        _ router: some RouterMethods<GatewayRequestContext>,
        prefix: String = "",
        _ method: HTTPRequest.Method,
        _ path: String,
        _ handler: @escaping @Sendable (Request, GatewayRequestContext) async throws -> Response
    ) {
        entries.append("\(method.rawValue) \(path)")
        methodsByPath[path, default: []].append(method)
        // The group already carries its prefix.
        let local = Self.hummingbirdPath(String(path.dropFirst(prefix.count)))
        router.on(RouterPath(local.isEmpty ? "/" : local), method: method, use: handler)
    }
}
