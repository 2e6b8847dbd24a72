import Foundation
import GatewayHTTPServing
import HTTPTypes
import Hummingbird
import Logging

/// A W3C Trace Context `traceparent` (`00-<trace id>-<parent id>-<flags>`): the one a request
/// brought, or a new trace. Gotenberg 8's OpenTelemetry takes it from the request and sends it
/// on with what it fetches and calls (downloads, webhooks), each call a span of its own: so
/// does pdfgate, which records no spans itself.
struct TraceParent: Sendable, Equatable, Codable {
    var traceID: String
    var parentID: String
    var flags: String

    /// The header's value if it is one (version 00's form; ids not all zero), else nil.
    init?(_ header: String?) {
        guard let header else { return nil }
        let parts = header.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let isHex = { (text: String, count: Int) in text.count == count && text.allSatisfy(\.isHexDigit) }
        guard parts.count >= 4, isHex(parts[0], 2), parts[0] != "ff", isHex(parts[1], 32), isHex(parts[2], 16), isHex(parts[3], 2),
            parts[1] != String(repeating: "0", count: 32), parts[2] != String(repeating: "0", count: 16)
        else { return nil }
        (traceID, parentID, flags) = (parts[1], parts[2], parts[3])
    }

    /// A new trace, sampled.
    init() {
        traceID = Self.randomHex(bytes: 16)
        parentID = Self.randomHex(bytes: 8)
        flags = "01"
    }

    /// The header for one outbound call: the same trace, a span id of its own.
    var forOutboundCall: String { "00-\(traceID)-\(Self.randomHex(bytes: 8))-\(flags)" }

    var header: String { "00-\(traceID)-\(parentID)-\(flags)" }

    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// Every answer of Gotenberg's routes — forms, `/health` (HEAD too), `/version`, `/`,
/// `/favicon.ico`, `/debug`, `/prometheus/metrics`, refusals included — carries the request's
/// trace id in `Gotenberg-Trace` (or the header `--api-trace-header` names), a new one when it
/// brought none; the id and the request's `traceparent` are the task's while it is answered.
package struct GotenbergTraceMiddleware: RouterMiddleware {
    package typealias Context = GatewayRequestContext
    let header: HTTPField.Name
    /// Paths whose requests are not logged (Gotenberg's telemetry and logging switches).
    let quiet: Set<String>

    package init(header: HTTPField.Name, quiet: Set<String> = []) {
        self.header = header
        self.quiet = quiet
    }

    /// The request's trace id under `header` (bounded: it is stored with its jobs), else a new one.
    package static func trace(of request: Request, header: HTTPField.Name) -> String {
        request.headers[header].flatMap { $0.isEmpty ? nil : String($0.prefix(256)) } ?? UUID().uuidString.lowercased()
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let trace = Self.trace(of: request, header: header)
        let parent = TraceParent(request.headers[.traceparent]) ?? TraceParent()
        let started = ContinuousClock.now
        do {
            var response = try await GotenbergJobs.$trace.withValue(trace) {
                try await GotenbergJobs.$traceParent.withValue(parent) { try await next(request, context) }
            }
            response.headers[header] = trace
            if !quiet.contains(request.uri.path) {
                Self.handled(request, status: response.status.code, trace: trace, since: started, logger: context.logger)
            }
            return response
        } catch {
            var refusal = GotenbergError.from(error)
            refusal.headers[header] = trace
            if !quiet.contains(request.uri.path) {
                Self.handled(request, status: refusal.status.code, trace: trace, since: started, logger: context.logger)
            }
            throw refusal
        }
    }

    /// One line a request, as Gotenberg's access log has it: log collectors (and its own
    /// scenarios) find a request by its `correlation_id`, the trace.
    static func handled(_ request: Request, status: Int, trace: String, since started: ContinuousClock.Instant, logger: Logger) {
        let latency = started.duration(to: .now)
        logger.info(
            "request handled",
            metadata: [
                "correlation_id": "\(trace)", "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                "uri": "\(request.uri.description)", "status": "\(status)",
                "latency_ms": "\(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000)",
            ]
        )
    }
}
