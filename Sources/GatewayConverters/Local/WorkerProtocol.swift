import Foundation

/// One request line to a warm tool's worker (the UNO worker, the Calibre worker).
struct WorkerRequest: Encodable, Sendable {
    enum Operation: String, Encodable, Sendable { case ping, convert, quit }
    var op: Operation
    var input: String?
    var output: String?
    /// The client's file name, for messages and for the extension check.
    var name: String?
    /// The tool's own options for this conversion (Calibre's command-line options).
    var arguments: [String]?

    static let ping = WorkerRequest(op: .ping)
    static let quit = WorkerRequest(op: .quit)

    func line() -> [UInt8] {
        // Encoding these plain strings cannot fail.
        Array((try? JSONEncoder().encode(self)) ?? Data("{}".utf8)) + [UInt8(ascii: "\n")]
    }
}

/// One reply line from a worker.
struct WorkerReply: Decodable, Sendable {
    var ok: Bool
    var kind: String?
    var code: String?
    var message: String?
    /// The worker saw its tool misbehave: restart it before its next use.
    var fatal: Bool?

    static func decode(_ line: [UInt8]) -> WorkerReply? {
        try? JSONDecoder().decode(WorkerReply.self, from: Data(line))
    }
}
