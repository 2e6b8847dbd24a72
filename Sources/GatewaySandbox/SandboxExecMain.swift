import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The body of `pdfgate sandbox-exec` (hidden), the first program inside a sandbox that needs
/// more than rlimits (Chromium's, and every one where util-linux's `prlimit` is missing): it sets
/// the rlimits (`RLimits`), binds the TCP listener Chromium's proxy traffic will reach if asked
/// and sends it to the gateway, then becomes the converter (`execv`).
///
///     pdfgate sandbox-exec [--address-space BYTES] [--cpu-seconds N] [--processes N]
///                          [--send-listener FD] -- TOOL ARGUMENTS…
package enum SandboxExecMain {
    package static func run(arguments: [String]) -> Never {
        guard let separator = arguments.firstIndex(of: "--"), separator + 1 < arguments.count else {
            fail("usage: pdfgate sandbox-exec [options] -- TOOL [ARGUMENTS…]")
        }
        let options = Array(arguments[..<separator])
        let command = Array(arguments[(separator + 1)...])
        func value(_ name: String) -> Int? {
            options.firstIndex(of: name).flatMap { $0 + 1 < options.count ? Int(options[$0 + 1]) : nil }
        }

        // A crash of a converter on a hostile document is expected, not a bug to keep a core of.
        limit(RLIMIT_CORE, 0)
        if let bytes = value("--address-space") { limit(RLIMIT_AS, bytes) }
        if let seconds = value("--cpu-seconds") { limit(RLIMIT_CPU, seconds, hard: seconds + RLimits.cpuGrace) }
        if let processes = value("--processes") { limit(__RLIMIT_NPROC, processes) }

        if let channel = value("--send-listener").map(Int32.init) {
            let listener = bindLoopbackListener(port: value("--listen-port") ?? 0)
            guard DescriptorPassing.send(listener, over: channel) else { fail("could not hand the listener to the gateway") }
            close(listener)
            close(channel)
        }

        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        execv(command[0], &argv)
        fail("could not run \(command[0]): \(String(cString: strerror(errno)))")
    }

    /// A listening socket on 127.0.0.1:`port` of the sandbox's own network namespace.
    private static func bindLoopbackListener(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(fd, 128) == 0
            }
        }
        guard bound else { fail("binding 127.0.0.1 in the sandbox: \(String(cString: strerror(errno)))") }
        return fd
    }

    private static func limit(_ resource: __rlimit_resource, _ soft: Int, hard: Int? = nil) {
        var value = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard ?? soft))
        if setrlimit(Int32(resource.rawValue), &value) != 0 {
            fail("setrlimit(\(resource.rawValue)): \(String(cString: strerror(errno)))")
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("pdfgate sandbox-exec: \(message)\n".utf8))
        exit(127)
    }
}
