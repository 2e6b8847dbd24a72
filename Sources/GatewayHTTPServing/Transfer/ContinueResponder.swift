import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as the request head arrives.
///
/// A client that sends it (curl for any body over 1 MiB, .NET and Java clients for every POST
/// and PUT) holds the body back until the server says go on, or until its own timer runs out:
/// a second, for curl. Neither NIO nor Hummingbird answers it, so without this handler every
/// large upload and one-shot create would wait that second. Answering at once is what RFC 9110
/// allows; a request refused later (a bad token, too large) is refused after its body, as it is
/// for clients that never ask.
package final class ContinueResponder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundOut = HTTPResponsePart

    package init() {}

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), let expect = head.headerFields[.expect],
            expect.lowercased() == "100-continue"
        {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
