import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Synchronization

/// A client that never uses a proxy: tests must only ever touch 127.0.0.1.
func loopbackClient(_ configure: (inout HTTPClientConfiguration) -> Void = { _ in }) -> HTTPClient {
    var configuration = HTTPClientConfiguration(proxy: .direct)
    configure(&configuration)
    return HTTPClient(configuration: configuration)
}

/// A value a server handler (on its own thread) hands back to the test.
final class Recorder<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value { storage.withLock { $0 } }

    func set(_ value: Value) { storage.withLock { $0 = value } }

    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}

/// Writes `size` bytes in 1 MiB pieces (never all in memory): one pseudo-random block, each copy
/// stamped with its index so no two pieces are alike. Cheap, because it runs on the test's task.
func makeFile(_ path: String, size: Int) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var generator = SystemRandomNumberGenerator()
    var block = Data(count: 1 << 20)
    block.withUnsafeMutableBytes { raw in
        for index in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self) }
    }
    var written = 0
    var index: UInt64 = 0
    while written < size {
        withUnsafeBytes(of: index) { block.replaceSubrange(0..<8, with: $0) }
        let count = min(block.count, size - written)
        try handle.write(contentsOf: block.prefix(count))
        written += count
        index += 1
    }
}

func sha256(_ path: String) async throws -> String {
    let result = try await run("sha256sum", [path])
    return String(result.stdout.prefix(64))
}

/// A port nothing listens on: bound once to learn a free number, then closed.
func closedPort() throws -> Int {
    let server = try LoopbackHTTPServer { _, response in try response.respond(status: 200) }
    let port = server.port
    server.stop()
    return port
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
