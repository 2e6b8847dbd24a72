import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayHTTPServing
import GatewayLibraryModel
import Hummingbird

/// DESIGN §3.3: `/healthz`, `/readyz`, `/metrics`, `/openapi.yaml` — no token needed.
struct OperationsController: Sendable {
    let readiness: Readiness
    let engine: JobEngine
    let metrics: GatewayMetrics
    let searchIndex: any SearchIndex

    func addRoutes(to router: Router<GatewayRequestContext>) {
        router.on("/healthz", method: .get) { _, _ in try jsonResponse(["status": "ok"]) }
        router.on("/readyz", method: .get) { _, _ in try await self.readiness() }
        router.on("/metrics", method: .get) { _, _ in try await self.metricsText() }
        router.on("/openapi.yaml", method: .get) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml))
            )
        }
    }

    private struct ReadyAnswer: Encodable {
        var status: String
        var checks: [String: Readiness.Check]
    }

    func readiness() async throws -> Response {
        let checks = await readiness.run()
        let ready = checks.values.allSatisfy(\.ok)
        return try jsonResponse(ReadyAnswer(status: ready ? "ready" : "not_ready", checks: checks), status: ready ? .ok : .serviceUnavailable)
    }

    func metricsText() async throws -> Response {
        let text = metrics.render(
            .init(
                jobsByStatus: try await engine.jobCounts(),
                queuedByType: try await engine.queuedCounts(),
                node: engine.configuration.node,
                leaseTakeovers: engine.leaseTakeovers,
                searchIndex: try await searchIndex.status(owner: nil)
            )
        )
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
