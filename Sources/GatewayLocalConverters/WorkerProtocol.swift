import Foundation
import GatewayConversionFormats

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
    /// LibreOffice's PDF export settings (`LibreOfficeExport`), by name.
    var filterData: [String: LibreOfficeExport.Value]?
    /// Turn every page landscape before exporting (LibreOffice).
    var landscape: Bool?
    /// Opens a protected input. Travels only over the worker's socket, which nothing logs.
    var password: String?
    /// Page ranges past the end keep the pages that exist (Gotenberg's routes).
    var clipPageRanges: Bool?

    init(op: Operation, input: String? = nil, output: String? = nil, name: String? = nil, settings: WorkerSettings = WorkerSettings()) {
        self.op = op
        self.input = input
        self.output = output
        self.name = name
        arguments = settings.arguments
        filterData = settings.filterData
        landscape = settings.landscape
        password = settings.password
        clipPageRanges = settings.clipPageRanges
    }

    enum CodingKeys: String, CodingKey {
        case op, input, output, name, arguments, landscape, password
        case filterData = "filter_data"
        case clipPageRanges = "clip_page_ranges"
    }

    static let ping = WorkerRequest(op: .ping)
    static let quit = WorkerRequest(op: .quit)

    func line() -> [UInt8] {
        // Encoding these plain strings cannot fail.
        Array((try? JSONEncoder().encode(self)) ?? Data("{}".utf8)) + [UInt8(ascii: "\n")]
    }
}

/// What one conversion asks of a worker's tool beyond its input and output.
struct WorkerSettings: Sendable {
    var arguments: [String]?
    var filterData: [String: LibreOfficeExport.Value]?
    var landscape: Bool?
    var password: String?
    var clipPageRanges: Bool?

    init(
        arguments: [String]? = nil,
        filterData: [String: LibreOfficeExport.Value]? = nil,
        landscape: Bool? = nil,
        password: String? = nil,
        clipPageRanges: Bool? = nil
    ) {
        self.arguments = arguments
        self.filterData = filterData
        self.landscape = landscape
        self.password = password
        self.clipPageRanges = clipPageRanges
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
