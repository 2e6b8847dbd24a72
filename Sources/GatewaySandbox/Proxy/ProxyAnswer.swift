import NIOCore
import NIOHTTP1

/// The proxy's own short answers (a refused CONNECT, an origin out of reach, a request that is
/// no proxy request): a status, no body, and the connection closed once it is sent, so the
/// browser never waits on a connection that has nothing more to say.
extension ChannelHandlerContext {
    func answerAndClose(_ status: HTTPResponseStatus) {
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: ["Content-Length": "0", "Connection": "close"])
        write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).assumeIsolated().whenComplete { _ in
            self.close(promise: nil)
        }
    }
}
