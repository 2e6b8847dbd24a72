#if canImport(Glibc)
import Glibc
#endif

/// A pipe that wakes a thread sleeping in `poll`: the monitors' way of saying "what you watch
/// has changed". Both ends are non-blocking and closed on exec; it lives as long as the process.
struct WakePipe: Sendable {
    /// The end the sleeping thread polls.
    let read: Int32
    private let write: Int32

    /// `owner` names who needs it, for the message should the process have no descriptors left.
    init(for owner: String) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "no pipe for the \(owner): \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (read, write) = (ends[0], ends[1])
    }

    func poke() {
        var byte: UInt8 = 1
        _ = Glibc.write(write, &byte, 1)
    }

    /// Empties the pipe after the thread woke up.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while Glibc.read(read, &bytes, bytes.count) > 0 {}
    }
}
