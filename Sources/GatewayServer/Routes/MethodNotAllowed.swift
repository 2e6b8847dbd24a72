import GatewayHTTPServing
import Hummingbird

/// The API's routes as OpenAPI writes them (`GET /v1/jobs/{id}`), read from the router itself,
/// and the answers for the methods a path does not have.
public enum APIRoutes {
    /// Paths of the documented API: everything under `/v1/` and the operations endpoints; the
    /// web page's files and Gotenberg's door are not in `openapi.yaml`.
    static func isAPIPath(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || ["/healthz", "/readyz", "/metrics", "/openapi.yaml"].contains(path)
    }

    /// `METHOD /path` for every API route the router has (Hummingbird spells captures `{id}`,
    /// as OpenAPI does).
    static func entries(of router: Router<GatewayRequestContext>) -> [String] {
        router.routes.map { ($0.method, $0.path.description) }.filter { isAPIPath($0.1) }.map { "\($0.0.rawValue) \($0.1)" }
    }

    /// The methods a client may try on any path: RFC 9110's, PATCH, and QUERY (the draft safe
    /// method with a body). CONNECT is left out: its target is a host, never one of our paths.
    static let knownMethods: [HTTPRequest.Method] = [
        .get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]

    /// Answers a method an API path does not have with 405 and an `Allow` header, instead of the
    /// router's 404, which would tell a client its URL is wrong when only its verb is; and
    /// `OPTIONS` with 204 and the same `Allow`. Call once every route is added.
    static func addMethodNotAllowed(to router: Router<GatewayRequestContext>) {
        var methodsByPath: [String: [HTTPRequest.Method]] = [:]
        for route in router.routes where isAPIPath(route.path.description) {
            methodsByPath[route.path.description, default: []].append(route.method)
        }
        for (path, methods) in methodsByPath {
            // Hummingbird answers HEAD wherever there is a GET (the same answer without a body).
            var allowed = methods
            if methods.contains(.get) { allowed.append(.head) }
            allowed.append(.options)
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            router.on(RouterPath(path), method: .options) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
            for verb in knownMethods where !allowed.contains(verb) {
                router.on(RouterPath(path), method: verb) { request, _ -> Response in
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
}
