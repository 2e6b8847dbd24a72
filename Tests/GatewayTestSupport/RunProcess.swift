import Foundation

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an executable to completion and captures its output (for the real CLI tools tests
/// cross-check against, and for our own binaries). The waiting happens on a thread of its own:
/// Swift Testing runs tests on the cooperative pool, which has one thread per core, and two
/// tests blocked in `waitpid` would stall every other test.
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil) async throws -> ProcessResult {
    try await onThread { try runBlocking(executable, arguments, environment: environment, stdin: stdin) }
}

/// Runs blocking work on a new thread and waits for it without holding a cooperative thread.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The blocking form, for code that is not async (benchmark loops timing a peer).
public func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]?, stdin: Data?) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try which(executable))
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
    nonisolated(unsafe) var errData = Data()
    let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errReader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while errReader.isExecuting || !errReader.isFinished { usleep(1000) }
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self)
    )
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
