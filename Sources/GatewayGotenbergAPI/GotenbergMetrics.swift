import Foundation
import GatewayEngine
import GatewaySettings
import Hummingbird

/// Gotenberg's `GET /prometheus/metrics`: its four gauges under its names, nothing else, so a
/// dashboard or alert built on Gotenberg keeps working (ours, far more of them, stay at
/// `/metrics`). The queues are the engine's queued jobs for each tool: URL pages and screenshots
/// for Chromium, office documents for LibreOffice (uploaded HTML, which Chromium prints, is
/// counted with the office jobs it is typed as). The restarts are the warm slots' restarts.
struct GotenbergMetrics: Sendable {
    let engine: JobEngine
    /// Chromium's and LibreOffice's restarts since start; zero where no local converter runs.
    let restarts: @Sendable () -> (chromium: Int, libreOffice: Int)
    /// Gotenberg's `--prometheus-namespace`: the names' prefix.
    var namespace = "gotenberg"
    /// Requests of a module waiting for room (`GotenbergAdmission`): in Gotenberg's queue too.
    var waiting: @Sendable (GotenbergModule) -> Int = { _ in 0 }

    /// Prometheus' text format, in the order and words Gotenberg writes it.
    func render() async throws -> String {
        let queued = try await engine.queuedCounts()
        let (chromiumRestarts, libreOfficeRestarts) = restarts()
        let gauges: [(name: String, help: String, value: Int)] = [
            (
                "chromium_requests_queue_size", "Current number of Chromium conversion requests waiting to be treated.",
                (queued[.urlToPDF] ?? 0) + (queued[.screenshot] ?? 0) + waiting(.chromium)
            ),
            ("chromium_restarts_count", "Current number of Chromium restarts.", chromiumRestarts),
            (
                "libreoffice_requests_queue_size", "Current number of LibreOffice conversion requests waiting to be treated.",
                (queued[.docToPDF] ?? 0) + waiting(.libreoffice)
            ),
            ("libreoffice_restarts_count", "Current number of LibreOffice restarts.", libreOfficeRestarts),
        ]
        return gauges.map { "# HELP \(namespace)_\($0.name) \($0.help)\n# TYPE \(namespace)_\($0.name) gauge\n\(namespace)_\($0.name) \($0.value)\n" }
            .joined()
    }

    func response() async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"],
            body: .init(byteBuffer: ByteBuffer(string: try await render()))
        )
    }
}
