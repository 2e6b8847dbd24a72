import Foundation

/// One request line to the UNO worker.
struct UnoWorkerRequest: Encodable, Sendable {
    enum Operation: String, Encodable, Sendable { case ping, convert, quit }
    var op: Operation
    var input: String?
    var output: String?
    /// The client's file name, for messages and for the extension check.
    var name: String?

    static let ping = UnoWorkerRequest(op: .ping)
    static let quit = UnoWorkerRequest(op: .quit)

    func line() -> [UInt8] {
        // Encoding these plain strings cannot fail.
        Array((try? JSONEncoder().encode(self)) ?? Data("{}".utf8)) + [UInt8(ascii: "\n")]
    }
}

/// One reply line from the UNO worker.
struct UnoWorkerReply: Decodable, Sendable {
    var ok: Bool
    var kind: String?
    var code: String?
    var message: String?
    /// The worker saw LibreOffice misbehave: restart the slot before its next use.
    var fatal: Bool?

    static func decode(_ line: [UInt8]) -> UnoWorkerReply? {
        try? JSONDecoder().decode(UnoWorkerReply.self, from: Data(line))
    }
}
