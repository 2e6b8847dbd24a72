import Foundation
import GatewayProcess

#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an executable to completion and captures its output (for the real CLI tools tests
/// cross-check against, and for our own binaries). Its output goes to files, so a chatty child
/// never blocks on a full pipe, and its exit is awaited without holding a thread.
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil) async throws -> ProcessResult {
    let capture = try Capture(stdin: stdin)
    defer { capture.remove() }
    let child = try capture.start(executable, arguments, environment: environment)
    return capture.result(await child.exit())
}

/// Runs blocking work on a new thread and waits for it without holding a cooperative thread.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The blocking form, for code that is not async (benchmark loops timing a peer).
public func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]?, stdin: Data?) throws -> ProcessResult {
    let capture = try Capture(stdin: stdin)
    defer { capture.remove() }
    let child = try capture.start(executable, arguments, environment: environment)
    return capture.result(child.exitNow())
}

/// The files a run's standard streams go to and come from.
private struct Capture {
    let directory: String
    let input: Int32?

    init(stdin: Data?) throws {
        directory = FileManager.default.temporaryDirectory.path + "/pdfgate-run-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let stdin else {
            input = nil
            return
        }
        try stdin.write(to: URL(fileURLWithPath: directory + "/stdin"))
        let descriptor = open(directory + "/stdin", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ChildFailure(description: "could not reopen the child's input in \(directory)") }
        input = descriptor
    }

    func start(_ executable: String, _ arguments: [String], environment: [String: String]?) throws -> Child {
        try Child(
            executable,
            arguments,
            environment: environment ?? [:],
            stdin: input.map { .descriptor($0) } ?? .null,
            stdout: .file(directory + "/stdout"),
            stderr: .file(directory + "/stderr")
        )
    }

    func result(_ termination: ChildTermination) -> ProcessResult {
        ProcessResult(
            status: termination.status,
            stdout: text(of: "stdout"),
            stderr: text(of: "stderr")
        )
    }

    /// Whatever the child wrote, invalid UTF-8 repaired rather than lost.
    private func text(of stream: String) -> String {
        String(decoding: FileManager.default.contents(atPath: directory + "/" + stream) ?? Data(), as: UTF8.self)
    }

    func remove() {
        if let input { close(input) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Absolute path of a program on PATH.
public func which(_ name: String) throws -> String {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw NSError(domain: "which", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) not found on PATH; run scripts/install-deps.sh"])
}

/// Path of one of this package's built executables: next to the running test binary.
public func builtProduct(_ name: String) -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    // On Linux the test bundle is `<bin>/PDFGatewayPackageTests.xctest` (a file); be robust to a directory bundle.
    if dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
    return dir.appendingPathComponent(name).path
}
