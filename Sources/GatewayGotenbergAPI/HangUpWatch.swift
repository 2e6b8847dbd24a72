import Hummingbird
import Synchronization

/// Whether a Gotenberg request notices its client hanging up, which cancels its jobs. Only on
/// real connections: Hummingbird's `consumeWithCancellationOnInboundClose` reads the request's
/// own part stream, which a router driven in-process (the tests' `.router` client) has no such
/// thing as. `GatewayServer.run` turns it on; the connection closes after such a response.
package final class HangUpWatch: Sendable {
    private let on = Atomic(false)

    package init() {}

    package func watch() { on.store(true, ordering: .relaxed) }

    /// Runs `operation` with the request's body, cancelled (CancellationError) when the client
    /// closes its side before it ends — while it is live. The connection then closes after the
    /// answer, which says so (`Connection: close`), so a client that keeps connections opens a
    /// new one rather than sending into a closed one.
    func run(_ request: Request, _ operation: (RequestBody) async throws -> Response) async throws -> Response {
        guard on.load(ordering: .relaxed) else { return try await operation(request.body) }
        do {
            var response = try await request.body.consumeWithCancellationOnInboundClose(operation)
            response.headers[.connection] = "close"
            return response
        } catch {
            var refusal = GotenbergError.from(error)
            refusal.headers[.connection] = "close"
            throw refusal
        }
    }
}
