import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a child's standard stream goes.
package enum ChildStream: Sendable {
    case null
    /// Created or truncated; the tail is read back for error messages.
    case file(String)
    /// Duplicated onto the stream; the caller keeps (and closes) its descriptor.
    case descriptor(Int32)
}

/// Everything needed to start one child process.
package struct ChildSpec: Sendable {
    package var executable: String
    package var arguments: [String]
    /// The complete environment of the child.
    package var environment: [String: String]
    package var workingDirectory: String?
    package var stdin: ChildStream = .null
    package var stdout: ChildStream = .null
    package var stderr: ChildStream = .null
    /// Further descriptors the child gets, by number in the child → ours; everything else above
    /// stderr is closed.
    package var inherited: [Int32: Int32] = [:]

    package init(
        executable: String,
        arguments: [String],
        environment: [String: String],
        workingDirectory: String? = nil,
        stdin: ChildStream = .null,
        stdout: ChildStream = .null,
        stderr: ChildStream = .null,
        inherited: [Int32: Int32] = [:]
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.inherited = inherited
    }
}

/// A child could not be started at all.
package struct SpawnFailure: Error, Sendable {
    package var message: String
    /// The `errno` that `posix_spawn` (or the socket for a line worker) gave.
    package var code: Int32

    package init(message: String, code: Int32) {
        self.message = message
        self.code = code
    }
}

/// A connected pair of Unix stream sockets, close-on-exec from birth: a child spawned
/// concurrently must not inherit either end (the spawn hands the child its end by number).
package func socketPair() -> (ours: Int32, theirs: Int32)? {
    var pair: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
    return (pair[0], pair[1])
}
