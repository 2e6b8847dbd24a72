import GatewayJobModel
import GatewayURLSecurity
import NIOCore
import NIOHTTP1

/// One browser connection to a vetting proxy: reads the request head, vets its URL (`URLGuard`,
/// async: no thread waits on it), connects to the address that was checked, and splices the two
/// channels (`GlueHandler`). A CONNECT is answered `200 Connection Established` and becomes a
/// byte tunnel; a plain-HTTP request goes on to the origin in origin form with
/// `Connection: close`, and the origin's answer comes back as it is. One request per
/// connection: a second one on it is dropped, and the connection ends with the first's answer.
///
/// While the request is being vetted and connected the handler asks for no more input, so a
/// large request body waits in the socket, not in memory.
final class ProxyRequestHandler {
    private let proxy: VettingProxy
    private let urlGuard: URLGuard
    /// The job's page, `host:port`: until Chromium asks for it, its requests are its own.
    private let page: String

    private enum Phase {
        case awaitingHead
        /// Vetting the URL, then connecting: input waits (`pendingParts`, `pendingBytes`).
        case preparing
        /// Glued to the origin: input goes on to it.
        case spliced
        /// Answered, refused or gone: input is dropped.
        case finished
    }

    private var phase = Phase.awaitingHead
    private var request: ProxyRequest?
    /// Whether the request's end has come: anything after it is another request (or, for a
    /// CONNECT, the tunnel's first bytes).
    private var requestEnded = false
    /// Plain HTTP: what the origin is to get once connected, the rewritten head first.
    private var pendingParts: [HTTPClientRequestPart] = []
    /// CONNECT: the tunnel's first bytes, when the browser sent them before the 200.
    private var pendingBytes: [NIOAny] = []
    private var pendingRead = false
    private var inputClosed = false

    init(proxy: VettingProxy, urlGuard: URLGuard, page: String) {
        self.proxy = proxy
        self.urlGuard = urlGuard
        self.page = page
    }
}

extension ProxyRequestHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPClientRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .awaitingHead:
            guard case .head(let head) = unwrapInboundIn(data) else {
                phase = .finished
                return context.answerAndClose(.badRequest)
            }
            begin(head, context: context)
        case .preparing:
            if request?.isConnect == true {
                if requestEnded {
                    pendingBytes.append(data)  // raw: the decoder passed on what it held as it left
                } else if case .end = unwrapInboundIn(data) {
                    connectEnded(context: context)
                }
            } else if !requestEnded, let part = forwarded(unwrapInboundIn(data)) {
                pendingParts.append(part)
                if case .end = part { requestEnded = true }
            }
        case .spliced:
            if request?.isConnect == true {
                if requestEnded {
                    context.fireChannelRead(data)
                } else if case .end = unwrapInboundIn(data) {
                    connectEnded(context: context)
                }
            } else if !requestEnded, let part = forwarded(unwrapInboundIn(data)) {
                context.fireChannelRead(wrapInboundOut(part))
                if case .end = part { requestEnded = true }
            }
        case .finished:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if phase == .spliced { context.fireChannelReadComplete() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .inputClosed = event as? ChannelEvent else { return context.fireUserInboundEventTriggered(event) }
        switch phase {
        case .awaitingHead: context.close(promise: nil)  // a browser that stopped sending asks for nothing
        case .finished: break  // closing already, after its answer if it has one
        case .preparing: inputClosed = true  // passed on once spliced
        case .spliced: context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch phase {
        case .awaitingHead:
            phase = .finished
            context.answerAndClose(.badRequest)  // not HTTP the decoder could read
        case .preparing, .finished:
            phase = .finished
            context.close(promise: nil)
        case .spliced:
            context.fireErrorCaught(error)  // the glue closes its partner
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if phase != .spliced { phase = .finished }
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if phase == .preparing {
            pendingRead = true
        } else {
            context.read()
        }
    }
}

extension ProxyRequestHandler {
    private func begin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let request = ProxyRequest(head) else {
            phase = .finished
            return context.answerAndClose(.badRequest)
        }
        guard proxy.isThePagesRequest(request, urlGuard: urlGuard, page: page) else {
            phase = .finished
            return context.close(promise: nil)  // Chromium's own: no answer, no note
        }
        self.request = request
        pendingParts = request.forwardedHead.map { [.head($0)] } ?? []
        phase = .preparing
        let url = request.url
        let urlGuard = urlGuard
        let vetting = context.eventLoop.makePromise(of: VettedURL.self)
        vetting.completeWithTask { try await urlGuard.vet(url) }
        vetting.futureResult.assumeIsolated().whenComplete { result in
            guard self.phase == .preparing else { return }  // the browser left meanwhile
            switch result {
            case .success(let vetted): self.connect(to: vetted, context: context)
            case .failure(let error): self.refuse(request, error, context: context)
            }
        }
    }

    /// A CONNECT's end: the HTTP part of the connection is over, so the decoder goes and passes
    /// on whatever it holds as the tunnel's first bytes.
    private func connectEnded(context: ChannelHandlerContext) {
        requestEnded = true
        if let decoder = try? context.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            context.pipeline.syncOperations.removeHandler(context: decoder, promise: nil)
        }
    }

    private var navigation: Bool? {
        guard let request, !request.isConnect else { return nil }
        return request.isNavigation
    }

    /// Plain HTTP gets no answer at all, so Chromium fails the load instead of printing one.
    private func refuse(_ request: ProxyRequest, _ error: any Error, context: ChannelHandlerContext) {
        let failure = error as? JobFailure ?? JobFailure(.rejected, code: "url_forbidden", "refusing to fetch \(request.url): \(error)")
        proxy.note(.refused(failure, navigation: navigation))
        // As Gotenberg's interception fails a request its rules refuse.
        proxy.noteNetError("net::ERR_ACCESS_DENIED", for: request)
        phase = .finished
        if request.isConnect { context.answerAndClose(.forbidden) } else { context.close(promise: nil) }
    }

    private func connect(to vetted: VettedURL, context: ChannelHandlerContext) {
        OriginConnector.connect(to: vetted, on: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let origin):
                guard self.phase == .preparing, self.proxy.track(origin) else {
                    origin.close(promise: nil)
                    return
                }
                self.splice(origin, context: context)
            case .failure(let error):
                guard self.phase == .preparing else { return }
                let reasons = (error as? OriginConnector.Unreachable)?.reasons ?? ["\(error)"]
                let reason = "could not connect to \(vetted.host):\(vetted.port) (\(reasons.joined(separator: "; ")))"
                self.proxy.note(.unreachable(reason, navigation: self.navigation))
                if let request = self.request {
                    self.proxy.noteNetError((error as? OriginConnector.Unreachable)?.netError ?? "net::ERR_CONNECTION_FAILED", for: request)
                }
                self.phase = .finished
                if self.request?.isConnect == true { context.answerAndClose(.badGateway) } else { context.close(promise: nil) }
            }
        }
    }

    /// Glues the browser's channel to the origin's, then lets through what waited.
    private func splice(_ origin: any Channel, context: ChannelHandlerContext) {
        let isConnect = request?.isConnect == true
        let (browserSide, originSide) = GlueHandler.matchedPair()
        do {
            if isConnect {
                let established = HTTPResponseHead(version: .http1_1, status: .custom(code: 200, reasonPhrase: "Connection Established"))
                context.write(wrapOutboundOut(.head(established)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                // The request goes on as HTTP, framed as the browser framed it.
                var encoding = HTTPRequestEncoder.Configuration()
                encoding.automaticallySetFramingHeaders = false
                try origin.pipeline.syncOperations.addHandler(HTTPRequestEncoder(configuration: encoding))
            }
            // From here on the browser gets the origin's bytes as they are: no encoder between.
            let encoder = try context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            context.pipeline.syncOperations.removeHandler(context: encoder, promise: nil)
            try origin.pipeline.syncOperations.addHandler(originSide)
            try context.pipeline.syncOperations.addHandler(browserSide)
        } catch {
            phase = .finished
            origin.close(promise: nil)
            context.close(promise: nil)
            return
        }
        phase = .spliced
        for part in pendingParts { context.fireChannelRead(wrapInboundOut(part)) }
        for bytes in pendingBytes { context.fireChannelRead(bytes) }
        (pendingParts, pendingBytes) = ([], [])
        context.fireChannelReadComplete()
        if inputClosed { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        if pendingRead {
            pendingRead = false
            context.read()
        }
    }

    /// A part of the request's body as the origin gets it; nil for a head, which here can only
    /// be a second request's (the first one's went on rewritten).
    private func forwarded(_ part: HTTPServerRequestPart) -> HTTPClientRequestPart? {
        switch part {
        case .head: nil
        case .body(let bytes): .body(.byteBuffer(bytes))
        case .end(let trailers): .end(trailers)
        }
    }
}
