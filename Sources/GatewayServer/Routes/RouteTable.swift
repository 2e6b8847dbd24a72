import Hummingbird

/// Registers routes and remembers them as OpenAPI spells them (`GET /v1/jobs/{id}`), so a test
/// can hold the router against `openapi.yaml`: Hummingbird's router does not list its routes.
public struct RouteTable: Sendable {
    public private(set) var entries: [String] = []
    private var methodsByPath: [String: [HTTPRequest.Method]] = [:]

    /// Answers a method a path does not have with 405 and an `Allow` header, instead of the
    /// router's 404, which would tell a client its URL is wrong when only its verb is. Call
    /// after every route is added; these are not API routes, so not in `entries`.
    func addMethodNotAllowed(to router: Router<GatewayRequestContext>) {
        let verbs: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        for (path, methods) in methodsByPath {
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            let local = path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
            for verb in verbs where !methods.contains(verb) {
                router.on(RouterPath(local), method: verb) { request, _ -> Response in
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
        // OpenAPI `{id}` → Hummingbird `:id`; the group already carries its prefix.
        var local = String(path.dropFirst(prefix.count))
        local = local.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
        router.on(RouterPath(local.isEmpty ? "/" : local), method: method, use: handler)
    }
}
