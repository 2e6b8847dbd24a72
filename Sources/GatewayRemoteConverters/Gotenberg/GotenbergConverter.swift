import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayURLSecurity

/// Converts through a Gotenberg 8.x server (DESIGN §4): one multipart `POST` per job whose
/// answer is the PDF, streamed straight into the job's output file.
///
/// The converter never retries: it classifies each failure (transient, rejected, timed out) and
/// the engine decides, so every wait goes through the one `BackoffPolicy`.
public struct GotenbergConverter: Converter {
    /// Where Gotenberg is and how to talk to it.
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `http://gotenberg:3000`.
        public var baseURL: String
        /// Transport settings. The default adds a low-speed limit of 1 byte/s over 60 s: Gotenberg
        /// sends nothing while it converts but gives up by itself after its `--api-timeout` (30 s by
        /// default) with a 503, so a minute of silence means the peer is gone. Raise it with that timeout.
        public var http: HTTPClientConfiguration
        /// Limit on the `/health` probe behind `isReady()`.
        public var healthTimeout: Duration
        /// The SSRF rules a URL must pass before Gotenberg is asked to fetch it.
        public var urlGuard: URLGuard

        /// A configuration for the server at `baseURL`.
        public init(
            baseURL: String,
            http: HTTPClientConfiguration = Self.defaultHTTP,
            healthTimeout: Duration = .seconds(3),
            urlGuard: URLGuard = URLGuard()
        ) {
            self.baseURL = baseURL
            self.http = http
            self.healthTimeout = healthTimeout
            self.urlGuard = urlGuard
        }

        /// The transport defaults described on `http`.
        public static var defaultHTTP: HTTPClientConfiguration {
            HTTPClientConfiguration(connectTimeout: .seconds(5), lowSpeedLimit: .init(bytesPerSecond: 1, duration: .seconds(60)))
        }
    }

    /// `gotenberg`.
    public let name = "gotenberg"
    /// The settings this converter was made with.
    public let configuration: Configuration
    private let client: HTTPClient
    private let base: String

    /// A converter for the Gotenberg server in `configuration`; it connects only when used.
    public init(configuration: Configuration) {
        self.configuration = configuration
        client = HTTPClient(configuration: configuration.http)
        base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
    }

    /// Sends the job to Gotenberg and leaves the PDF at `request.outputPath`.
    ///
    /// Reports `.converting` only: upload, conversion and answer are one exchange, and the
    /// upload of a staged file takes a blink next to the conversion it starts.
    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        // Gotenberg's Chromium fetches the page from wherever Gotenberg runs, which is usually
        // beside us on a private network: a name that resolves to a private or metadata
        // address is refused here with the rule it breaks, before Gotenberg sees it. (Gotenberg
        // resolves the name again itself: its own outbound filtering closes that window.)
        if case .url(let url) = request.source { _ = try await configuration.urlGuard.vet(url) }
        let form = try GotenbergForm.make(for: request)
        let deadline = RemoteDeadline(request.deadline)
        let timeout = try deadline.timeout(service: "Gotenberg", doing: form.summary)
        await events(.entered(.converting))
        let call = HTTPRequest(
            method: "POST",
            url: base + form.route,
            headers: ["Gotenberg-Trace": request.jobID.uuidString.lowercased()],
            body: .multipart(form.parts)
        )
        let response: HTTPResponse
        do {
            response = try await RemoteFailures.exchange(service: "Gotenberg", doing: form.summary, deadline: deadline) {
                try await client.execute(call, sink: .file(path: request.outputPath), timeout: timeout)
            }
        } catch {
            RemoteOutput.discard(request.outputPath)
            throw error
        }
        guard response.isSuccess else {
            // Gotenberg explains a rejection in a plain-text body; it landed in the output file.
            let detail = RemoteOutput.excerpt(ofFile: request.outputPath, limit: 500)
            RemoteOutput.discard(request.outputPath)
            throw RemoteFailures.forStatus(
                response.status,
                service: "Gotenberg",
                doing: form.summary,
                detail: detail,
                retryAfter: RemoteFailures.retryAfter(of: response)
            )
        }
        try RemoteOutput.verifyPDF(at: request.outputPath, service: "Gotenberg")
    }

    /// Whether `GET /health` answers 200 within `healthTimeout`.
    public func isReady() async -> Bool {
        let response = try? await client.execute(
            HTTPRequest(url: base + "/health"),
            sink: .memory(limit: 64 << 10),
            timeout: configuration.healthTimeout
        )
        return response?.status == 200
    }
}
