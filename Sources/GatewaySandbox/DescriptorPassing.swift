import Foundation
import Glibc

#if canImport(Glibc)
#endif

/// Sends and receives one open descriptor over a Unix socket (`SCM_RIGHTS`). The sandbox uses it
/// to hand the gateway a listener that was bound inside the sandbox's network namespace.
/// (The `CMSG_*` macros do not import into Swift, so the control message is laid out by hand:
/// a `cmsghdr`, then the descriptor, padded to the header's alignment.)
enum DescriptorPassing {
    private static let headerSize = (MemoryLayout<cmsghdr>.size + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
    private static let controlSize = headerSize + ((MemoryLayout<Int32>.size + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1))

    /// Sends `descriptor` with a one-byte message; false when the socket refused it.
    static func send(_ descriptor: Int32, over socket: Int32) -> Bool {
        var byte: UInt8 = 1
        var control = [UInt8](repeating: 0, count: controlSize)
        return withUnsafeMutablePointer(to: &byte) { bytePointer in
            control.withUnsafeMutableBytes { controlBuffer in
                let header = controlBuffer.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                header.pointee.cmsg_len = headerSize + MemoryLayout<Int32>.size
                header.pointee.cmsg_level = SOL_SOCKET
                header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                controlBuffer.storeBytes(of: descriptor, toByteOffset: headerSize, as: Int32.self)
                var vector = iovec(iov_base: bytePointer, iov_len: 1)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBuffer.baseAddress
                    message.msg_controllen = controlBuffer.count
                    while true {
                        let sent = sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
                        if sent < 0, errno == EINTR { continue }
                        return sent == 1
                    }
                }
            }
        }
    }

    /// Waits up to `timeout` for a descriptor on `socket`; nil when none came (the sender died
    /// or never sent one). The received descriptor is close-on-exec.
    static func receive(over socket: Int32, timeout: Duration) -> Int32? {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.inMilliseconds)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            break
        }
        var byte: UInt8 = 0
        var control = [UInt8](repeating: 0, count: controlSize)
        return withUnsafeMutablePointer(to: &byte) { bytePointer in
            control.withUnsafeMutableBytes { controlBuffer -> Int32? in
                var vector = iovec(iov_base: bytePointer, iov_len: 1)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer -> Int32? in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBuffer.baseAddress
                    message.msg_controllen = controlBuffer.count
                    var received = -1
                    repeat { received = recvmsg(socket, &message, Int32(MSG_CMSG_CLOEXEC)) } while received < 0 && errno == EINTR
                    guard received == 1, message.msg_controllen >= headerSize + MemoryLayout<Int32>.size else { return nil }
                    let header = controlBuffer.baseAddress!.assumingMemoryBound(to: cmsghdr.self).pointee
                    guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) else { return nil }
                    return controlBuffer.load(fromByteOffset: headerSize, as: Int32.self)
                }
            }
        }
    }
}
