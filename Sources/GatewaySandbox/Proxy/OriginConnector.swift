import GatewayURLSecurity
import Glibc
import NIOCore
import NIOPosix

#if canImport(Glibc)
#endif

/// Connects to a vetted URL at the addresses it was checked at, each in turn until one
/// answers: the pinning that keeps DNS rebinding out (the name is never looked up again).
enum OriginConnector {
    /// How long connecting to one address may take before the next is tried.
    static let timeout: TimeAmount = .seconds(10)

    /// Every address refused or timed out: why, address by address, and Chromium's name for the
    /// last failure (`net::ERR_CONNECTION_REFUSED`), which it would have reported had it
    /// connected itself.
    struct Unreachable: Error {
        var reasons: [String]
        var netError = "net::ERR_CONNECTION_FAILED"
    }

    /// A channel to the first of `vetted`'s addresses that answers, on `eventLoop` (the
    /// browser's channel's, so the two can be spliced without hopping threads).
    static func connect(to vetted: VettedURL, on eventLoop: any EventLoop) -> EventLoopFuture<any Channel> {
        attempt(vetted.addresses[...], port: vetted.port, on: eventLoop, reasons: [])
    }

    private static func attempt(
        _ addresses: ArraySlice<IPAddress>,
        port: Int,
        on eventLoop: any EventLoop,
        reasons: [String],
        netError: String = "net::ERR_CONNECTION_FAILED"
    ) -> EventLoopFuture<any Channel> {
        guard let address = addresses.first else { return eventLoop.makeFailedFuture(Unreachable(reasons: reasons, netError: netError)) }
        let connected: EventLoopFuture<any Channel>
        do {
            connected = ClientBootstrap(group: eventLoop)
                .connectTimeout(timeout)
                // Each direction of a splice ends on its own, as the two ends close them.
                .channelOption(.allowRemoteHalfClosure, value: true)
                .connect(to: try socketAddress(address, port: port))
        } catch {
            connected = eventLoop.makeFailedFuture(error)
        }
        return connected.flatMapError { error in
            attempt(
                addresses.dropFirst(),
                port: port,
                on: eventLoop,
                reasons: reasons + ["\(address): \(describe(error))"],
                netError: chromiumName(error)
            )
        }
    }

    private static func socketAddress(_ address: IPAddress, port: Int) throws -> SocketAddress {
        var packed = ByteBuffer()
        switch address {
        case .v4(let value): packed.writeInteger(value)  // network order: big-endian
        case .v6(let bytes): packed.writeBytes(bytes)
        }
        return try SocketAddress(packedIPAddress: packed, port: port)
    }

    /// Chromium's `net::` error for a failed connect, as its own network stack names it.
    private static func chromiumName(_ error: any Error) -> String {
        switch error {
        case let error as IOError where error.errnoCode == ECONNREFUSED: "net::ERR_CONNECTION_REFUSED"
        case let error as IOError where [ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode): "net::ERR_ADDRESS_UNREACHABLE"
        case let error as IOError where error.errnoCode == ECONNRESET: "net::ERR_CONNECTION_RESET"
        case ChannelError.connectTimeout: "net::ERR_CONNECTION_TIMED_OUT"
        default: "net::ERR_CONNECTION_FAILED"
        }
    }

    /// The reason in words, as `strerror` would say it, without NIO's call-site detail.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError: String(cString: strerror(error.errnoCode))
        case ChannelError.connectTimeout: "timed out"
        default: "\(error)"
        }
    }
}
