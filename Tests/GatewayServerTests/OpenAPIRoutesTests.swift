import Foundation
import GatewayServer
import GatewaySettings
import GatewayTestSupport
import Logging
import Testing

/// `openapi.yaml` and the router describe the same API: every route the server registers is in
/// the spec, and the spec promises no route the server lacks.
@Suite("openapi.yaml matches the router")
struct OpenAPIRoutesTests {
    /// `METHOD /path` for every operation under `paths:` (2-space paths, 4-space methods).
    static func specOperations(_ yaml: String) -> Set<String> {
        var operations = Set<String>()
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" ") && !line.isEmpty && !line.hasPrefix("#") { break }  // next top-level key
            if line.hasPrefix("  /") {
                path = String(line.dropFirst(2).prefix { $0 != ":" })
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" }
                if ["get", "put", "post", "patch", "delete", "head", "options"].contains(key) {
                    operations.insert("\(key.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    @Test("the router's routes and the spec's operations are the same set")
    func sameSet() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-openapi-\(UUID().uuidString.prefix(8))"
        var configuration = ServerConfiguration()
        configuration.store = store
        let server = try await GatewayServer(configuration: configuration, logger: Logger(label: "test"))
        let routes = Set(server.routes)
        let yaml = try String(contentsOfFile: Fixtures.root + "/../openapi.yaml", encoding: .utf8)
        let spec = Self.specOperations(yaml)
        #expect(routes.count >= 20)
        #expect(routes.subtracting(spec).isEmpty, "routes missing from openapi.yaml: \(routes.subtracting(spec).sorted())")
        #expect(spec.subtracting(routes).isEmpty, "operations in openapi.yaml the server lacks: \(spec.subtracting(routes).sorted())")
    }
}
