import Foundation

/// A metadata tag beyond the document information we type (`MetadataUpdate.tags`): written with
/// ExifTool, as Gotenberg writes every key of its `metadata` field — `Copyright`, `Marked`,
/// `Trapped`, XMP tags by group (`XMP-dc:Rights`), and dates with their offsets kept.
public enum MetadataTag: Sendable, Equatable, Codable {
    case text(String)
    /// Several values of a list tag (`Keywords`), in order.
    case texts([String])
    case flag(Bool)
    case number(Double)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let texts = try? container.decode([String].self) {
            self = .texts(texts)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a text, a list of texts, true/false or a number")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .texts(let texts): try container.encode(texts)
        case .flag(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        }
    }

    /// ExifTool's `-TAG=value` arguments for this value of tag `name`, one per list entry.
    public func arguments(for name: String) -> [String] {
        // Trapped is XMP's (pdf:Trapped) in the files ExifTool writes, as Gotenberg names it.
        let tag = name == "Trapped" ? "XMP-pdf:Trapped" : name
        switch self {
        case .text(let text): return ["-\(tag)=\(text)"]
        case .texts(let texts): return texts.map { "-\(tag)=\($0)" }
        case .flag(let flag): return ["-\(tag)=\(flag)"]
        case .number(let number):
            return ["-\(tag)=\(number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number))"]
        }
    }

    /// The texts this value writes (none for a flag or a number).
    public var texts: [String] {
        switch self {
        case .text(let text): [text]
        case .texts(let texts): texts
        default: []
        }
    }

    /// ExifTool tag names that move, link or re-permission the file instead of describing it.
    static let fileTags: Set<String> = ["filename", "directory", "hardlink", "symlink", "filepermissions", "testname"]

    /// Why tag `name` with this value cannot be written, or nil (said of `field`): a malformed
    /// name or value (400), or a tag that would act on the file (422: well-formed, but refused).
    public func problem(name: String, field: String) -> OperationError? {
        guard name.wholeMatch(of: /[A-Za-z0-9_.:][A-Za-z0-9\-_.:]*/) != nil, name.count <= 128 else {
            return OperationError(
                .invalid,
                code: "invalid_operation",
                "\(field) has a tag name '\(name)' that is not one: letters, digits, '-', '_', '.' and a group before ':'"
            )
        }
        let bare = (name.split(separator: ":").last.map(String.init) ?? name).lowercased()
        if Self.fileTags.contains(bare) || bare.hasPrefix("file") {
            return OperationError(
                .outOfRange,
                code: "metadata_tag_refused",
                "\(field) '\(name)' would act on the file, not describe it: it is not written"
            )
        }
        if texts.contains(where: { $0.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) || $0.unicodeScalars.count > 4096 }) {
            return OperationError(.invalid, code: "invalid_operation", "\(field) '\(name)' must be on one line, at most 4,096 characters")
        }
        if case .number(let number) = self, !number.isFinite {
            return OperationError(.invalid, code: "invalid_operation", "\(field) '\(name)' must be a finite number")
        }
        return nil
    }
}
