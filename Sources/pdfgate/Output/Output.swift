import Foundation
import GatewayWire

/// Printing for people (aligned tables) and for scripts (JSON), one style for every command.
enum Output {
    static func printJSON(_ value: some Encodable) {
        let encoder = WireJSON.encoder(pretty: true)
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// JSON already written (`JSONOutput`), printed as `printJSON` prints: indented, keys sorted.
    static func printJSON(bytes: [UInt8]) {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes)),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return FileHandle.standardOutput.write(Data(bytes) + Data("\n".utf8)) }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("pdfgate: \(message)\n".utf8))
    }

    /// Columns padded to their widest cell; the last column is not padded.
    static func printTable(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }

    static func iso8601(_ date: Date) -> String { WireJSON.iso8601(date) }

    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }

    static func shortDate(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }
}
