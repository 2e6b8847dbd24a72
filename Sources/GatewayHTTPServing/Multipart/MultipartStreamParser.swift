/// A streaming `multipart/form-data` parser (RFC 7578, framing from RFC 2046 §5.1).
///
/// Feed it the request body in chunks of any size; each call returns the events the chunk
/// completed: `partBegin`, then zero or more `body` slices, then `partEnd`, for every part.
/// Call `finish()` at end of stream to learn whether the form was closed properly.
///
/// Memory stays bounded whatever the body size: between calls the parser keeps at most the tail
/// that could still be the start of a delimiter (`boundary.count + 3` bytes) or, while reading
/// a part's headers, that part's header block (at most `maxHeaderBytes`). A `body` event holds
/// no more than the chunk that completed it plus that small tail, so feed bounded chunks.
///
/// The parser is a value: copy it and each copy parses on independently. Errors are sticky: once
/// `feed` or `finish` throws, every later call throws the same error.
public struct MultipartStreamParser: Sendable {
    /// Largest header block a part may have, in bytes (line endings included).
    public static let defaultMaxHeaderBytes = 16 * 1024

    /// The boundary, as given to `init`.
    public let boundary: String
    /// Largest header block this parser accepts per part; past it, `multipart_headers_too_large`.
    public let maxHeaderBytes: Int

    /// `\r\n--boundary`: a boundary only counts at the start of a line.
    private let delimiter: [UInt8]
    private var state: State = .preamble
    /// Bytes received but not yet consumed. Starts as CRLF so that a body that opens directly
    /// with `--boundary` (no preamble) matches the same delimiter as every later boundary.
    private var pending: [UInt8] = [Byte.cr, Byte.lf]
    private var headerLines: [(name: String, value: String)] = []
    private var headerBytes = 0
    /// How many bytes at the start of `pending` are already known to hold no LF, so a header
    /// line that arrives one byte at a time is not rescanned from its start on every feed.
    private var headerScanned = 0
    private var failure: MultipartError?

    private enum State: Sendable {
        case preamble  // before the first boundary: discarded
        case afterDelimiter  // just past `--boundary`: `--` closes the form, anything else opens a part
        case boundaryLine  // optional spaces/tabs, then the line break ending the boundary line
        case headers
        case body
        case epilogue  // after `--boundary--`: discarded
    }

    /// - Throws: `bad_multipart_boundary` when `boundary` is empty, longer than 70 characters, or holds
    ///   anything but printable ASCII (RFC 2046 §5.1.1).
    public init(boundary: String, maxHeaderBytes: Int = MultipartStreamParser.defaultMaxHeaderBytes) throws(MultipartError) {
        let bytes = Array(boundary.utf8)
        guard !bytes.isEmpty else {
            throw MultipartError(
                "bad_multipart_boundary",
                "the multipart boundary is empty; send Content-Type: multipart/form-data; boundary=<1 to 70 characters>"
            )
        }
        guard bytes.count <= 70 else {
            throw MultipartError(
                "bad_multipart_boundary",
                "the multipart boundary is \(bytes.count) characters long, RFC 2046 allows at most 70: use a shorter boundary"
            )
        }
        // Printable ASCII keeps CR and LF out of the delimiter, which the linear search relies on.
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }), bytes.last != Byte.space else {
            throw MultipartError(
                "bad_multipart_boundary",
                "the multipart boundary must be printable ASCII and not end in a space: use letters, digits, '-', '_' or '.'"
            )
        }
        self.boundary = boundary
        self.maxHeaderBytes = maxHeaderBytes
        self.delimiter = [Byte.cr, Byte.lf, Byte.dash, Byte.dash] + bytes
    }

    /// The `boundary` parameter of a `multipart/…` Content-Type, quoted or not; `nil` when the type
    /// is not multipart or has no (or an empty) boundary.
    public static func boundary(fromContentType contentType: String) -> String? {
        let (value, parameters) = HeaderValue.split(contentType)
        guard value.lowercased().hasPrefix("multipart/"), let boundary = parameters["boundary"], !boundary.isEmpty else { return nil }
        return boundary
    }

    /// Bytes held between feeds; exposed so tests can check memory stays bounded.
    var bufferedByteCount: Int { pending.count }

    /// Feeds the next chunk of the body (any size; boundaries and headers may be split anywhere)
    /// and returns the events it completes, in order.
    ///
    /// - Throws: `bad_multipart` when the body is not well-formed multipart, `multipart_headers_too_large`
    ///   when a part's header block exceeds `maxHeaderBytes`.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(MultipartError) -> [MultipartEvent] {
        if let failure { throw failure }
        // Work on a local so the unsafe view of the bytes does not overlap with mutating `self`.
        var buffer: [UInt8] = []
        swap(&buffer, &pending)
        buffer.append(contentsOf: chunk)
        var events: [MultipartEvent] = []
        var thrown: MultipartError?
        let consumed = buffer.withUnsafeBufferPointer { bytes in
            do throws(MultipartError) {
                return try process(bytes, into: &events)
            } catch {
                thrown = error
                return 0
            }
        }
        if let thrown {
            failure = thrown
            throw thrown
        }
        buffer.removeFirst(consumed)  // what is left is small (see the type's documentation)
        pending = buffer
        return events
    }

    /// Call at end of stream. Produces no events: the last `partEnd` came with the closing boundary.
    ///
    /// - Throws: `bad_multipart` when the closing `--boundary--` was never seen.
    public mutating func finish() throws(MultipartError) {
        if let failure { throw failure }
        let error: MultipartError
        switch state {
        case .epilogue:
            return
        case .preamble:
            error = MultipartError(
                "bad_multipart",
                "the body has no '--\(boundary)' boundary line: check that the Content-Type boundary matches the one in the body"
            )
        case .afterDelimiter, .boundaryLine, .headers, .body:
            error = MultipartError(
                "bad_multipart",
                "the body ended before the closing '--\(boundary)--' line: the upload was cut short or the form was not closed"
            )
        }
        failure = error
        throw error
    }

    // MARK: - The state machine

    /// Runs the state machine over `bytes` and returns how many of them were consumed; the rest
    /// are kept for the next feed.
    private mutating func process(
        _ bytes: UnsafeBufferPointer<UInt8>,
        into events: inout [MultipartEvent]
    ) throws(MultipartError) -> Int {
        var index = 0
        while true {
            switch state {
            case .preamble, .body:
                let (found, safeEnd) = findDelimiter(in: bytes, from: index)
                // Everything before `safeEnd` is certainly not part of a delimiter: emit it now.
                if state == .body, safeEnd > index {
                    events.append(.body(Array(UnsafeBufferPointer(rebasing: bytes[index..<safeEnd]))))
                }
                guard found else { return safeEnd }
                if state == .body { events.append(.partEnd) }
                index = safeEnd + delimiter.count
                state = .afterDelimiter

            case .afterDelimiter:
                guard index < bytes.count else { return index }
                guard bytes[index] == Byte.dash else {
                    state = .boundaryLine
                    continue
                }
                guard index + 1 < bytes.count else { return index }
                guard bytes[index + 1] == Byte.dash else { throw boundaryFollowedBy(bytes[index + 1]) }
                index += 2
                state = .epilogue

            case .boundaryLine:
                // RFC 2046 allows whitespace ("transport padding") between the boundary and its line break.
                while index < bytes.count, bytes[index] == Byte.space || bytes[index] == Byte.tab { index += 1 }
                guard index < bytes.count else { return index }
                if bytes[index] == Byte.cr {
                    guard index + 1 < bytes.count else { return index }
                    guard bytes[index + 1] == Byte.lf else { throw boundaryFollowedBy(bytes[index + 1]) }
                    index += 2
                } else if bytes[index] == Byte.lf {
                    index += 1  // bare LF: tolerated
                } else {
                    throw boundaryFollowedBy(bytes[index])
                }
                state = .headers
                headerLines = []
                headerBytes = 0
                headerScanned = 0

            case .headers:
                var end = index + headerScanned
                while end < bytes.count, bytes[end] != Byte.lf { end += 1 }
                guard end < bytes.count else {
                    headerScanned = end - index
                    if headerBytes + headerScanned > maxHeaderBytes { throw headersTooLarge() }
                    return index
                }
                headerScanned = 0
                headerBytes += end + 1 - index
                if headerBytes > maxHeaderBytes { throw headersTooLarge() }
                let lineEnd = end > index && bytes[end - 1] == Byte.cr ? end - 1 : end
                if lineEnd == index {  // the blank line that ends the header block
                    events.append(.partBegin(MultipartPartHeaders(lines: headerLines)))
                    headerLines = []
                    state = .body
                } else {
                    try addHeaderLine(UnsafeBufferPointer(rebasing: bytes[index..<lineEnd]))
                }
                index = end + 1

            case .epilogue:
                return bytes.count
            }
        }
    }

    /// Looks for the delimiter in `bytes[start...]`. Returns whether it was found and where it
    /// starts; when not found, the returned index is where a possible partial delimiter at the end
    /// starts (or `bytes.count`), so everything before it is safe to emit.
    ///
    /// Linear time: the delimiter holds exactly one CR, at its start, so after a mismatch at
    /// offset `k` from a CR the next candidate cannot begin before offset `k`.
    private func findDelimiter(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (found: Bool, at: Int) {
        delimiter.withUnsafeBufferPointer { delimiter in
            let count = bytes.count
            var position = start
            while position < count {
                guard bytes[position] == Byte.cr else {
                    position += 1
                    continue
                }
                var matched = 1
                while matched < delimiter.count, position + matched < count, bytes[position + matched] == delimiter[matched] {
                    matched += 1
                }
                if matched == delimiter.count { return (true, position) }
                if position + matched == count { return (false, position) }  // a prefix runs to the end: hold it back
                position += matched
            }
            return (false, count)
        }
    }

    private mutating func addHeaderLine(_ line: UnsafeBufferPointer<UInt8>) throws(MultipartError) {
        let text = HeaderValue.decode(line)
        if line[0] == Byte.space || line[0] == Byte.tab {
            // An obsolete folded line (RFC 5322 §2.2.3) continues the previous header.
            guard !headerLines.isEmpty else {
                throw MultipartError("bad_multipart", "a part's header block starts with an indented line: start it with 'Name: value'")
            }
            headerLines[headerLines.count - 1].value += " " + HeaderValue.trim(text)
            return
        }
        guard let colon = text.firstIndex(of: ":"), !text[..<colon].isEmpty, !text[..<colon].contains(where: \.isWhitespace) else {
            throw MultipartError(
                "bad_multipart",
                "the part header line \"\(text.prefix(60))\" is not 'Name: value': check the form's encoding and its boundary"
            )
        }
        headerLines.append((String(text[..<colon]).lowercased(), HeaderValue.trim(text[text.index(after: colon)...])))
    }

    private func boundaryFollowedBy(_ byte: UInt8) -> MultipartError {
        let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return MultipartError(
            "bad_multipart",
            "a '--\(boundary)' boundary line continues with \(shown) instead of a line break or '--': "
                + "the boundary must not occur inside a part, so choose one that does not"
        )
    }

    private func headersTooLarge() -> MultipartError {
        MultipartError(
            "multipart_headers_too_large",
            "a part's header block is larger than \(maxHeaderBytes) bytes: send fewer or shorter part headers"
        )
    }
}

/// What a `MultipartStreamParser` finds, in stream order.
public enum MultipartEvent: Sendable, Equatable {
    /// A part starts; its body follows.
    case partBegin(MultipartPartHeaders)
    /// The next bytes of the current part's body: a slice, never necessarily the whole part.
    case body([UInt8])
    /// The current part is complete.
    case partEnd
}

/// The headers of one part, with the `form-data` fields picked out.
public struct MultipartPartHeaders: Sendable, Equatable {
    /// The form field name (`Content-Disposition: form-data; name=…`).
    public var name: String?
    /// The uploaded file's name: `filename*` (RFC 5987, UTF-8 or ISO-8859-1) wins over `filename`,
    /// and only the last path component is kept, so it never names a directory.
    public var filename: String?
    /// The part's `Content-Type`; RFC 7578 says to assume `text/plain` when absent.
    public var contentType: String?
    /// Every header, names lowercased; when a name repeats, its first value wins.
    public var fields: [String: String]

    public init(name: String? = nil, filename: String? = nil, contentType: String? = nil, fields: [String: String] = [:]) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.fields = fields
    }

    init(lines: [(name: String, value: String)]) {
        var fields: [String: String] = [:]
        for line in lines where fields[line.name] == nil { fields[line.name] = line.value }
        self.fields = fields
        self.contentType = fields["content-type"]
        guard let disposition = fields["content-disposition"] else { return }
        self.name = ContentDisposition.parameter("name", of: disposition)
        self.filename = ContentDisposition.filename(disposition)
    }
}

/// A failure to parse, with a stable `code` for clients and a `message` that says what to fix.
public struct MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `bad_multipart_boundary`, `bad_multipart` or `multipart_headers_too_large`.
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// The bytes the multipart and header parsers look for.
enum Byte {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let percent: UInt8 = 0x25
    static let dash: UInt8 = 0x2D
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let backslash: UInt8 = 0x5C
}
