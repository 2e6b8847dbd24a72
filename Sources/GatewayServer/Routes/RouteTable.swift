import Hummingbird

/// Registers routes and remembers them as OpenAPI spells them (`GET /v1/jobs/{id}`), so a test
/// can hold the router against `openapi.yaml`: Hummingbird's router does not list its routes.
public struct RouteTable: Sendable {
    public private(set) var entries: [String] = []

    /// Adds `method path` (OpenAPI form) to `group`, whose prefix must be `group`'s own.
    mutating func add(
        _ router: some RouterMethods<GatewayRequestContext>,
        prefix: String = "",
        _ method: HTTPRequest.Method,
        _ path: String,
        _ handler: @escaping @Sendable (Request, GatewayRequestContext) async throws -> Response
    ) {
        entries.append("\(method.rawValue) \(path)")
        // OpenAPI `{id}` → Hummingbird `:id`; the group already carries its prefix.
        var local = String(path.dropFirst(prefix.count))
        local = local.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
        router.on(RouterPath(local.isEmpty ? "/" : local), method: method, use: handler)
    }
}
