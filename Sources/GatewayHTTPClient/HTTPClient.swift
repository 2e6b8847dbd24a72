import Foundation

/// An async HTTP/1.1 client over libcurl that streams request bodies from files and responses
/// into files, so memory stays flat whatever the document size.
///
/// Every exchange of the process runs on one shared transfer loop (`TransferLoop.shared`): one
/// libcurl multi handle driven by one thread, never Swift's cooperative pool, while the calling
/// task suspends on a continuation. Cancelling the task removes the transfer from the loop at
/// once, removes a partial response file and throws `CancellationError`.
///
/// TLS certificates are always verified. Proxies follow `HTTPClientConfiguration.proxy`.
public final class HTTPClient: Sendable {
    /// Limits and policies for every request.
    public let configuration: HTTPClientConfiguration
    private let loop: TransferLoop

    /// A client on the process's shared transfer loop; it holds no connections of its own, so
    /// creating one is cheap.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
        self.loop = .shared
    }

    /// A client whose transfers run on `loop`.
    init(configuration: HTTPClientConfiguration, loop: TransferLoop) {
        self.configuration = configuration
        self.loop = loop
    }

    /// Stops the process's shared transfer loop and returns once its thread has exited:
    /// transfers in flight fail, and so does every client's exchange from then on. For a
    /// process's last moments, once nothing sends any more.
    public static func shutdownSharedLoop() async {
        await TransferLoop.shared.shutdown()
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
                loop.submit(PendingTransfer(transfer: transfer, context: context, continuation: continuation))
            }
        } onCancel: {
            loop.cancel(context)
        }
    }
}
