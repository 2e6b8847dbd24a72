import Foundation
import GatewayJobModel
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// An uploaded page and the files of its bundle, served on one made-up `http:` origin.
struct ServedPage: Sendable {
    /// The HTML on disk.
    var file: String
    /// Where the browser asks for it.
    var url: String
    /// The bundle's other files on disk, by their paths beside the page.
    var assets: [String: String]
    /// The page's Content-Security-Policy, sent as a header that no markup can undo.
    var policy: String
}

/// One browser connection to a serving proxy: answers the page or one of its files, with the
/// CSP as a header and nothing cached; refuses a CONNECT with a 403, and closes unanswered on
/// anything else (Chromium fails that load). One answer per connection, then it closes.
/// Files stream from disk through swift-nio's file system in chunks, each sent before the next
/// is read, so neither a large file nor a slow reader fills memory.
final class PageServingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let page: ServedPage
    private var answered = false

    init(page: ServedPage) {
        self.page = page
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered, case .head(let head) = unwrapInboundIn(data) else { return }
        answered = true
        guard let request = ProxyRequest(head) else { return context.answerAndClose(.badRequest) }
        if !request.isConnect && request.url == page.url {
            stream(page.file, type: "text/html", to: context.channel)
        } else if !request.isConnect, let asset = VettingProxy.asset(request.url, beside: page.url, in: page.assets) {
            stream(asset, type: MediaTypes.mediaType(ofFile: asset), to: context.channel)
        } else if request.isConnect {
            context.answerAndClose(.forbidden)
        } else if VettingProxy.isOnOrigin(request.url, of: page.url) {
            // A file the bundle lacks (the browser's own /favicon.ico among them): not found,
            // as a file server answers, rather than a load that failed.
            context.answerAndClose(.notFound)
        } else {
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A browser that stopped sending before asking for anything will ask for nothing.
        if case .inputClosed = event as? ChannelEvent, !answered { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return }  // the answer under way closes the connection when done
        answered = true
        context.answerAndClose(.badRequest)  // not HTTP the decoder could read
    }

    /// The file's answer, from a task of its own (the file system is async); the task lives no
    /// longer than the connection, since a write to a closed channel fails and ends it.
    private func stream(_ file: String, type: String, to channel: any Channel) {
        let policy = page.policy
        Task {
            var started = false
            do {
                try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(file)) { handle in
                    let size = try await handle.info().size
                    let headers: HTTPHeaders = [
                        "Content-Type": type, "Content-Length": "\(size)", "Content-Security-Policy": policy,
                        "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Connection": "close",
                    ]
                    started = true
                    let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
                    try await channel.writeAndFlush(HTTPServerResponsePart.head(head)).get()
                    for try await chunk in handle.readChunks(chunkLength: .kibibytes(64)) {
                        try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk))).get()
                    }
                    try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
                }
            } catch {
                // Once the answer has started, the browser went away or the proxy was stopped:
                // nobody is left to tell. Before, the file could not be read.
                if !started {
                    let notFound = HTTPResponseHead(version: .http1_1, status: .notFound, headers: ["Content-Length": "0", "Connection": "close"])
                    channel.write(HTTPServerResponsePart.head(notFound), promise: nil)
                    try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
                }
            }
            channel.close(promise: nil)
        }
    }
}
