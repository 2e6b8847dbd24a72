import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// NIO's HTTP parser refuses a request head it cannot read — over 80 KiB (a URL that long, or
/// its headers) or malformed — and Hummingbird then answers a bare 400 with no body. Placed
/// right after the codec, this answers first, in the API's error shape: 431
/// `request_head_too_large` or 400 `malformed_request`, a JSON body saying what to do, and the
/// connection closed (the parser cannot go on past such a head).
package final class RequestHeadRefusal: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias OutboundOut = HTTPResponsePart

    package init() {}

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let (status, code, message): (HTTPResponse.Status, String, String) =
            parse == .headerOverflow
            ? (
                HTTPResponse.Status(code: 431, reasonPhrase: "Request Header Fields Too Large"), "request_head_too_large",
                "the request line and headers exceed 80 KiB; send long values (operations, options) in a JSON body instead of the URL"
            )
            : (.badRequest, "malformed_request", "the request is not valid HTTP/1.1 (\(parse)); check the request line and headers")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let body = (try? encoder.encode(["error": code, "error_message": message])) ?? Data()
        let head = HTTPResponse(
            status: status,
            headerFields: [.contentType: "application/json", .contentLength: String(body.count), .connection: "close"]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(mode: .output, promise: nil)
    }
}
