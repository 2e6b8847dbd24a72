import Foundation

/// The repository's `Fixtures/` folder: real documents made by real tools (scripts/make-fixtures.sh).
public enum Fixtures {
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("Fixtures")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("pdf").path) { return candidate.path }
        }
        fatalError("Fixtures/ not found above \(#filePath)")
    }()

    public static func pdf(_ name: String) -> String { root + "/pdf/" + name }
    public static func office(_ name: String) -> String { root + "/office/" + name }
    /// The benchmark's realistic office files (`Fixtures/office-set/README.md` says what each holds).
    public static func officeSet(_ name: String) -> String { root + "/office-set/" + name }
    public static func ebook(_ name: String) -> String { root + "/ebook/" + name }

    /// The facts `Fixtures/expected.json` records for each valid PDF, keyed like `pdf/one-page.pdf`.
    public static func expected() throws -> [String: [String: JSONValue]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/expected.json"))
        return try JSONDecoder().decode([String: [String: JSONValue]].self, from: data)
    }
}

/// Just enough JSON to read expectations without a schema.
public enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
}
