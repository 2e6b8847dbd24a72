import Foundation
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import HTTPTypes
import Hummingbird

/// `GET /v1/jobs/{id}/events`: Server-Sent Events. The first event is the job as it is now,
/// each event's `id:` is the job's revision (monotonic), `Last-Event-ID` skips what the client
/// has seen, a `:` comment every `heartbeat` keeps proxies from closing an idle stream, and the
/// stream ends after the terminal event.
struct JobEventsController: Sendable {
    let engine: JobEngine
    let links: APILinks
    let heartbeat: Duration
    let closing: ClosingSignal

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/jobs/{id}/events", method: .get) { request, context in try await self.jobEvents(request, context) }
    }

    private enum StreamItem: Sendable {
        case changed(Job)
        case heartbeat
    }

    func jobEvents(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let job = try await engine.job(try context.parameters.require("id"), ownedBy: try context.requireOwner())
        let seen = request.headers[.lastEventID].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let base = links.baseURL(for: request)
        let (engine, closing, heartbeat) = (self.engine, self.closing, self.heartbeat)

        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"  // nginx: do not buffer the stream
        let body = ResponseBody { writer in
            let (items, continuation) = AsyncStream.makeStream(of: StreamItem.self, bufferingPolicy: .bufferingNewest(256))
            // Subscribe before reading the snapshot, so no change falls between the two.
            let token = engine.observe(job.id) { continuation.yield(.changed($0)) }
            let closingToken = closing.register { continuation.finish() }
            // Cancelled by the `defer` below, when the stream ends.
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    continuation.yield(.heartbeat)
                }
            }
            defer {
                beat.cancel()
                engine.stopObserving(job.id, token: token)
                closing.remove(closingToken)
                continuation.finish()
            }
            var lastSent = seen
            let snapshot = (try? await engine.job(job.id)) ?? job
            if snapshot.revision > lastSent {
                try await writer.write(ByteBuffer(string: self.event(snapshot, base: base)))
                lastSent = snapshot.revision
            }
            if snapshot.state.status.isTerminal {
                try await writer.finish(nil)
                return
            }
            for await item in items {
                switch item {
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                case .changed(let changed):
                    guard changed.revision > lastSent else { continue }
                    try await writer.write(ByteBuffer(string: self.event(changed, base: base)))
                    lastSent = changed.revision
                    if changed.state.status.isTerminal {
                        try await writer.finish(nil)
                        return
                    }
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    private func event(_ job: Job, base: String) async -> String {
        let data = (try? await links.jobJSON(job, base: base).json()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "id: \(job.revision)\nevent: job\ndata: \(data)\n\n"
    }
}
