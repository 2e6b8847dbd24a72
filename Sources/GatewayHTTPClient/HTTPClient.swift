import Foundation

/// An async HTTP/1.1 client over libcurl that streams request bodies from files and responses
/// into files, so memory stays flat whatever the document size.
///
/// Each exchange runs on a dedicated thread, never on Swift's cooperative pool, because libcurl
/// blocks while it waits for the network; the calling task suspends on a continuation. Cancelling
/// the task aborts the transfer at once (a `curl_multi_wakeup` interrupts the wait), removes a
/// partial response file and throws `CancellationError`.
///
/// TLS certificates are always verified. Proxies follow `HTTPClientConfiguration.proxy`.
public final class HTTPClient: Sendable {
    /// Limits and policies for every request.
    public let configuration: HTTPClientConfiguration

    /// A client; it holds no connections, so creating one is cheap.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
    }

    /// Sends `request` and returns the response of whatever status, with its body in `sink`.
    ///
    /// - Parameter timeout: limit on the whole exchange; replaces `configuration.totalTimeout`.
    /// - Throws: `HTTPClientError` when no complete response arrived, `CancellationError` when the task was cancelled.
    public func execute(
        _ request: HTTPRequest,
        sink: HTTPResponseSink = .memory(limit: 1 << 20),
        timeout: Duration? = nil
    ) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let transfer = Transfer(request: request, sink: sink, configuration: configuration, totalTimeout: timeout ?? configuration.totalTimeout)
        let context = TransferContext()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let thread = Thread {
                    continuation.resume(with: transfer.run(context: context))
                }
                thread.name = "pdfgate-http"
                thread.start()
            }
        } onCancel: {
            context.cancel()
        }
    }
}
