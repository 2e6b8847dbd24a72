import Foundation
import Glibc
import NIOPosix

#if canImport(Glibc)
#endif

/// A URL that passed the SSRF rules, with the addresses it was checked at. Fetchers must
/// connect to exactly these (pinning), so a DNS answer that changes between the check and the
/// fetch (rebinding) cannot point them somewhere private.
public struct VettedURL: Sendable, Equatable {
    public var url: String
    public var host: String
    public var port: Int
    public var addresses: [IPAddress]

    /// For libcurl's `CURLOPT_RESOLVE`: `host:port:address`, an IPv6 address in brackets (as
    /// its `description` already writes it).
    public var curlResolve: String? {
        guard let first = addresses.first, IPAddress(host: host) == nil else { return nil }
        return "\(host):\(port):\(first.description)"
    }
}

/// Applies `URLCheck` to a URL, resolving its host (off the cooperative pool) and checking
/// every address it resolves to.
public struct URLGuard: Sendable {
    public var check: URLCheck
    /// Turns a host name into addresses: the system resolver, or a fixed table in tests so
    /// they can vet names without asking DNS.
    public var resolver: @Sendable (String) async -> [IPAddress]

    public init(check: URLCheck = URLCheck(), resolver: @escaping @Sendable (String) async -> [IPAddress] = URLGuard.resolve) {
        self.check = check
        self.resolver = resolver
    }

    public func vet(_ url: String) async throws -> VettedURL {
        let (host, port, isLiteral) = try check.checkSyntax(url)
        if isLiteral, let address = IPAddress(host: host) {
            return VettedURL(url: url, host: host, port: port, addresses: [address])
        }
        let addresses = await resolver(host)
        try check.checkResolved(url, host: host, port: port, addresses: addresses)
        return VettedURL(url: url, host: host, port: port, addresses: addresses)
    }

    /// getaddrinfo blocks, so it runs on one of `resolverThreads`.
    public static func resolve(_ host: String) async -> [IPAddress] {
        (try? await resolverThreads.runIfActive { resolveBlocking(host) }) ?? []
    }

    /// Threads of their own for getaddrinfo, which can block for seconds on a slow DNS server:
    /// NIO's shared blocking pool is only as wide as the CPU count and also serves file I/O
    /// (Hummingbird's), which a slow lookup must not hold up. Bounded, so a page naming hundreds
    /// of hosts queues its lookups instead of starting hundreds of threads. Started once and
    /// never shut down: a static lives as long as the process.
    private static let resolverThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    static func resolveBlocking(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let sockaddr = entry.pointee.ai_addr {
                if entry.pointee.ai_family == AF_INET {
                    let value = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
                    addresses.append(.v4(value))
                } else if entry.pointee.ai_family == AF_INET6 {
                    let bytes = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    addresses.append(.v6(bytes))
                }
            }
            cursor = entry.pointee.ai_next
        }
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
