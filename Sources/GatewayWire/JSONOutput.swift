import Foundation
import GatewayLibraryModel

/// A small JSON writer for the API's hot paths (a page of 50 documents): Foundation's
/// `JSONEncoder` spends most of such a request building and hashing dictionaries. It writes
/// what `WireJSON.encoder()` would, key order aside; a test holds the two to the same values.
public struct JSONOutput: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// How many containers are open; at 0 a value needs no comma.
    private var depth = 0
    /// Does the next member of the innermost open container need a comma? After a container
    /// closes this is always true (the container was a member of its parent), so one flag
    /// serves every level and no stack is kept.
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        depth += 1
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        precondition(depth > 0, "JSONOutput: a container closed that was never opened")
        depth -= 1
        needsComma = true
        bytes.append(bracket)
    }

    /// The next member's key; its value follows with one of the value writers.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false  // the value is part of this member
    }

    /// A key known only at run time (a log line's metadata), escaped as a string is.
    public mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false  // the value is part of this member
    }

    public mutating func string(_ value: String?) {
        separate()
        guard let value else { return raw("null") }
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole instead of byte by byte.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An id as lowercase text (`UUID.lowercased`), written without making a `String` of it.
    public mutating func id(_ value: UUID?) {
        guard let value else { return null() }
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.withLowercasedUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func int(_ value: Int64) {
        separate()
        digits(value)
    }

    /// `value` in decimal, without making a `String` of it first.
    private mutating func digits(_ value: Int64) {
        guard value != .min else { return bytes.append(contentsOf: String(value).utf8) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    public mutating func double(_ value: Double) {
        separate()
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            digits(Int64(value))  // as JSONEncoder: 612, not 612.0
        } else {
            bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        }
    }

    /// A double that reads back bit for bit (Swift's shortest round-tripping spelling); null
    /// when not finite.
    public mutating func exactDouble(_ value: Double) {
        separate()
        bytes.append(contentsOf: (value.isFinite ? value.description : "null").utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
    }

    public mutating func date(_ value: Date?) {
        guard let value else { return string(nil) }
        separate()
        bytes.append(UInt8(ascii: "\""))
        WireJSON.iso8601(value, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func null() {
        separate()
        raw("null")
    }

    /// A value of many fields that is rare on the hot paths (a job's options or operations),
    /// written by `WireJSON.encoder()` rather than by hand a second time.
    public mutating func encoded(_ value: some Encodable) throws {
        let data = try WireJSON.encoder().encode(value)
        separate()
        bytes.append(contentsOf: data)
    }

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes the comma before a value or key when the container already has a member.
    private mutating func separate() {
        guard depth > 0 else { return }
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }
}

extension PDFInfo {
    public func write(to out: inout JSONOutput) {
        out.beginObject()
        out.key("page_count")
        // A PDF kept although unreadable may not even say how many pages it has.
        if let count = knownPageCount { out.int(Int64(count)) } else { out.null() }
        out.key("title")
        out.string(title)
        out.key("author")
        out.string(author)
        out.key("subject")
        out.string(subject)
        out.key("keywords")
        out.string(keywords)
        out.key("creator")
        out.string(creator)
        out.key("producer")
        out.string(producer)
        out.key("created_at")
        out.date(createdAt)
        out.key("modified_at")
        out.date(modifiedAt)
        out.key("pdf_version")
        out.string(pdfVersion)
        out.key("page_width")
        out.double(pageWidth)
        out.key("page_height")
        out.double(pageHeight)
        out.key("encrypted")
        out.bool(encrypted)
        out.key("linearized")
        out.bool(linearized)
        out.key("pdfa")
        out.string(pdfa)
        out.key("warning")
        out.string(warning)
        out.endObject()
    }
}

extension DocumentJSON {
    public func write(to out: inout JSONOutput) {
        Self.write(document, downloadURL: downloadURL, version: version, to: &out)
    }

    /// The one writer of a document's JSON, straight from the library's value: the change feed
    /// writes pages of 500 without wrapping each document first.
    public static func write(_ document: Document, downloadURL: String?, version: String?, to out: inout JSONOutput) {
        out.beginObject()
        out.key("id")
        out.id(document.id)
        out.key("name")
        out.string(document.name)
        out.key("folder")
        out.string(document.folderPath)
        out.key("folder_id")
        out.id(document.folderID)
        out.key("path")
        out.string(document.relativePath)
        out.key("page_count")
        if let count = document.info.knownPageCount { out.int(Int64(count)) } else { out.null() }
        out.key("size")
        out.int(document.size)
        out.key("sha256")
        out.string(document.sha256)
        out.key("created_at")
        out.date(document.createdAt)
        out.key("updated_at")
        out.date(document.updatedAt)
        out.key("metadata")
        document.info.write(to: &out)
        if let downloadURL {
            out.key("download_url")
            out.string(downloadURL)
        }
        if let version {
            out.key("version")
            out.string(version)
        }
        out.endObject()
    }
}
