import Testing

@testable import GatewayHTTPServing
@testable import GatewayServer

private let formBoundary = "----PDFGatewayBoundary7MA4YWxk"

@Suite("Multipart stream parser")
struct MultipartStreamParserTests {
    // MARK: Framing

    @Test func parsesAFieldAndAFile() throws {
        let pdf: [UInt8] = Array("%PDF-1.7\r\n".utf8) + [0x00, 0xFF, 0x0D, 0x0A, 0x2D, 0x2D] + Array("%%EOF".utf8)
        let message = form([
            (["Content-Disposition: form-data; name=\"title\""], bytes("Quarterly report")),
            (["Content-Disposition: form-data; name=\"file\"; filename=\"q3.pdf\"", "Content-Type: application/pdf"], pdf),
        ])
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let events = try parser.feed(message)
        try parser.finish()

        let title = MultipartPartHeaders(name: "title", fields: ["content-disposition": "form-data; name=\"title\""])
        let file = MultipartPartHeaders(
            name: "file",
            filename: "q3.pdf",
            contentType: "application/pdf",
            fields: ["content-disposition": "form-data; name=\"file\"; filename=\"q3.pdf\"", "content-type": "application/pdf"]
        )
        #expect(
            events == [.partBegin(title), .body(bytes("Quarterly report")), .partEnd, .partBegin(file), .body(pdf), .partEnd]
        )
    }

    @Test func skipsPreambleAndEpilogue() throws {
        let message =
            bytes("This preamble mentions --\(formBoundary) mid-line, which is not a boundary.\r\n")
            + form([(["Content-Disposition: form-data; name=\"only\""], bytes("value"))])
            + bytes("\r\nEpilogue.\r\n--\(formBoundary)\r\nContent-Disposition: form-data; name=\"ghost\"\r\n\r\nboo\r\n")
        let parts = try parse(message, chunks: [message[...]])
        #expect(parts.map(\.headers.name) == ["only"])
        #expect(parts.map(\.body) == [bytes("value")])
    }

    @Test func handlesEmptyPartsAndPartsWithoutHeaders() throws {
        let message = form([
            (["Content-Disposition: form-data; name=\"empty\""], []),
            ([], bytes("anonymous")),
            ([], []),
        ])
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let events = try parser.feed(message)
        try parser.finish()
        let empty = MultipartPartHeaders(name: "empty", fields: ["content-disposition": "form-data; name=\"empty\""])
        // An empty body produces no `.body` event at all, not an empty one.
        #expect(
            events == [
                .partBegin(empty), .partEnd, .partBegin(MultipartPartHeaders()), .body(bytes("anonymous")), .partEnd,
                .partBegin(MultipartPartHeaders()), .partEnd,
            ]
        )
    }

    @Test func aFormWithoutPreambleMayStartWithTheBoundary() throws {
        let message = form([(["Content-Disposition: form-data; name=\"a\""], bytes("1"))])
        #expect(message.starts(with: bytes("--\(formBoundary)\r\n")))
        #expect(try parse(message, chunks: [message[...]]).map(\.body) == [bytes("1")])
    }

    @Test func toleratesTransportPaddingBareLFAndFoldedHeaders() throws {
        let message = bytes(
            "--\(formBoundary) \t\r\nContent-Disposition: form-data;\n  name=\"folded\"\nContent-Type: text/plain\n\n"
                + "body\r\n--\(formBoundary)--"
        )
        let parts = try parse(message, chunks: oneByteChunks(message))
        #expect(parts.count == 1)
        #expect(parts.first?.headers.name == "folded")
        #expect(parts.first?.headers.contentType == "text/plain")
        #expect(parts.first?.body == bytes("body"))
    }

    // MARK: Bodies and chunking

    @Test func bodiesMayHoldNearMissDelimiters() throws {
        let body = nearMisses(for: formBoundary)
        let message = form([(["Content-Disposition: form-data; name=\"tricky\"; filename=\"t.bin\""], body), ([], body)])
        for chunks in [[message[...]], oneByteChunks(message)] {
            let parts = try parse(message, chunks: chunks)
            #expect(parts.map(\.body) == [body, body])
        }
    }

    @Test func oneByteAtATimeMatchesTheOriginals() throws {
        var random = SplitMix64(seed: 7)
        let original = randomParts(using: &random)
        let message = form(original.map { ($0.headerLines, $0.body) })
        let parts = try parse(message, chunks: oneByteChunks(message))
        try expect(parts, match: original)
    }

    @Test func everyTwoWaySplitMatchesTheOriginals() throws {
        let original = [
            GeneratedPart(name: "a", filename: "a.bin", contentType: "application/octet-stream", body: nearMisses(for: formBoundary)),
            GeneratedPart(name: "b", filename: nil, contentType: nil, body: []),
            GeneratedPart(name: "c", filename: nil, contentType: "text/plain", body: bytes("\r\n--\r\n")),
        ]
        let message = bytes("preamble\r\n") + form(original.map { ($0.headerLines, $0.body) }) + bytes("\r\nepilogue")
        for split in 0...message.count {
            let parts = try parse(message, chunks: [message[..<split], message[split...]])
            try expect(parts, match: original, "split at \(split)")
        }
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomChunkSizesMatchTheOriginals(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for round in 0..<20 {
            let original = randomParts(using: &random)
            let message = form(original.map { ($0.headerLines, $0.body) })
            var chunks: [ArraySlice<UInt8>] = []
            var start = 0
            while start < message.count {
                // Mostly small chunks so boundaries land everywhere, now and then a large one.
                let large = Int.random(in: 0..<10, using: &random) == 0
                let size = large ? Int.random(in: 1...5000, using: &random) : Int.random(in: 1...80, using: &random)
                let end = min(message.count, start + size)
                chunks.append(message[start..<end])
                start = end
            }
            try expect(try parse(message, chunks: chunks), match: original, "seed \(seed) round \(round)")
        }
    }

    @Test func emitsBodyBytesAsSoonAsTheyCannotBeADelimiter() throws {
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let head = try parser.feed(bytes("--\(formBoundary)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nhello"))
        #expect(head.count == 2)
        #expect(head.last == .body(bytes("hello")))

        // "\r\n--" plus half the boundary might be a delimiter: held back, the rest goes out.
        let partial = "\r\n--" + formBoundary.prefix(10)
        #expect(try parser.feed(bytes("abc" + partial)) == [.body(bytes("abc"))])
        #expect(parser.bufferedByteCount == partial.utf8.count)

        // It was not: the held-back bytes come out with the next ones.
        #expect(try parser.feed(bytes("!")) == [.body(bytes(partial + "!"))])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func memoryStaysBoundedForALargeBody() throws {
        var random = SplitMix64(seed: 99)
        let body = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) } + nearMisses(for: formBoundary)
        let message = form([(["Content-Disposition: form-data; name=\"big\"; filename=\"big.bin\""], body)])
        let chunkSize = 4096
        let heldBackLimit = formBoundary.utf8.count + 3  // a proper prefix of "\r\n--boundary"
        var parser = try MultipartStreamParser(boundary: formBoundary)
        var received: [UInt8] = []
        var start = 0
        while start < message.count {
            let end = min(message.count, start + chunkSize)
            for event in try parser.feed(message[start..<end]) {
                guard case .body(let bytes) = event else { continue }
                #expect(bytes.count <= chunkSize + heldBackLimit)
                received += bytes
            }
            #expect(parser.bufferedByteCount <= heldBackLimit, "after byte \(end)")
            start = end
        }
        try parser.finish()
        #expect(received == body)
    }

    // MARK: Headers

    @Test func headerNamesAreCaseInsensitive() throws {
        let message = form([(["CONTENT-DISPOSITION: form-data; NAME=\"upper\"; FileName=\"x.pdf\"", "content-TYPE: application/pdf"], [])])
        let parts = try parse(message, chunks: [message[...]])
        #expect(parts.first?.headers.name == "upper")
        #expect(parts.first?.headers.filename == "x.pdf")
        #expect(parts.first?.headers.contentType == "application/pdf")
        #expect(parts.first?.headers.fields["content-type"] == "application/pdf")
    }

    @Test(
        arguments: [
            ("form-data; name=\"file\"; filename=\"a b;c.pdf\"", "file", "a b;c.pdf"),
            ("form-data; name=file; filename=plain.txt", "file", "plain.txt"),
            ("form-data; name=\"f\"; filename=\"fallback.pdf\"; filename*=UTF-8''%E2%82%AC%20rates.pdf", "f", "€ rates.pdf"),
            ("form-data; filename*=utf-8'en'na%C3%AFve.txt; name=\"f\"", "f", "naïve.txt"),
            ("form-data; name=\"f\"; filename*=iso-8859-1''caf%E9.txt", "f", "café.txt"),
            ("form-data; name=\"f\"; filename*=UTF-8''%FF.txt; filename=\"ok.txt\"", "f", "ok.txt"),  // bad UTF-8: fall back
            ("form-data; name=\"f\"; filename=\"say \\\"hi\\\".txt\"", "f", "say \"hi\".txt"),
            ("form-data; name=\"f\"; filename=\"C:\\Users\\me\\cv.pdf\"", "f", "cv.pdf"),
            ("form-data; name=\"f\"; filename=\"../../etc/passwd\"", "f", "passwd"),
            ("form-data; name=\"f\"; filename=\"résumé.pdf\"", "f", "résumé.pdf"),  // raw UTF-8, as browsers send it
            ("form-data; name*=UTF-8''%C3%A9t%C3%A9", "été", nil),
            ("form-data; name=\"just a field\"", "just a field", nil),
        ] as [(String, String?, String?)]
    )
    func readsNameAndFilenameFromContentDisposition(disposition: String, name: String?, filename: String?) throws {
        let message = form([(["Content-Disposition: \(disposition)"], bytes("x"))])
        let parts = try parse(message, chunks: oneByteChunks(message))
        #expect(parts.first?.headers.name == name)
        #expect(parts.first?.headers.filename == filename)
    }

    @Test func refusesOversizedHeaderBlocksWithoutBufferingThem() throws {
        let limit = MultipartStreamParser.defaultMaxHeaderBytes
        let message = form([(["Content-Disposition: form-data; name=\"x\"", "X-Padding: " + String(repeating: "a", count: limit)], [])])
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let error = #expect(throws: MultipartError.self) {
            for byte in message {
                _ = try parser.feed([byte])
                #expect(parser.bufferedByteCount <= limit)
            }
        }
        #expect(error?.code == "multipart_headers_too_large")
        #expect(error?.message.contains("\(limit) bytes") == true)
    }

    @Test func acceptsAHeaderBlockExactlyAtTheLimit() throws {
        let line = "Content-Disposition: form-data; name=\"x\""
        let message = form([([line], bytes("ok"))])
        var parser = try MultipartStreamParser(boundary: formBoundary, maxHeaderBytes: line.utf8.count + 4)  // line, CRLF, CRLF
        #expect(try parser.feed(message).contains(.body(bytes("ok"))))
        try parser.finish()

        var tight = try MultipartStreamParser(boundary: formBoundary, maxHeaderBytes: line.utf8.count + 3)
        let error = #expect(throws: MultipartError.self) { _ = try tight.feed(message) }
        #expect(error?.code == "multipart_headers_too_large")
    }

    @Test func refusesAHeaderLineWithoutAColon() throws {
        let message = form([(["Content-Disposition form-data"], [])])
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let error = #expect(throws: MultipartError.self) { _ = try parser.feed(message) }
        #expect(error?.code == "bad_multipart")
        #expect(error?.message.contains("Content-Disposition form-data") == true)
    }

    // MARK: Boundaries

    @Test(
        arguments: [
            ("multipart/form-data; boundary=abc123", "abc123"),
            ("multipart/form-data; boundary=\"a b:c\"", "a b:c"),
            ("Multipart/Form-Data; charset=utf-8; BOUNDARY=\"----WebKitFormBoundaryZu0gW\"", "----WebKitFormBoundaryZu0gW"),
            ("multipart/mixed;boundary=x;charset=utf-8", "x"),
            ("application/json; boundary=abc", nil),
            ("multipart/form-data", nil),
            ("multipart/form-data; boundary=\"\"", nil),
        ] as [(String, String?)]
    )
    func readsTheBoundaryFromTheContentType(contentType: String, boundary: String?) {
        #expect(MultipartStreamParser.boundary(fromContentType: contentType) == boundary)
    }

    @Test(arguments: ["", String(repeating: "b", count: 71), "line\r\nbreak", "ünïcode", "trailing "])
    func refusesBadBoundaries(boundary: String) {
        let error = #expect(throws: MultipartError.self) { _ = try MultipartStreamParser(boundary: boundary) }
        #expect(error?.code == "bad_multipart_boundary")
    }

    @Test func acceptsASeventyCharacterBoundary() throws {
        let boundary = String(repeating: "b", count: 70)
        let message = form([(["Content-Disposition: form-data; name=\"long\""], bytes("v"))], boundary: boundary)
        #expect(try parse(message, boundary: boundary, chunks: oneByteChunks(message)).map(\.body) == [bytes("v")])
    }

    @Test func aBoundaryInsideABodyIsAnErrorThatSticks() throws {
        let message = bytes("--\(formBoundary)\r\n\r\nbody\r\n--\(formBoundary)X more")
        var parser = try MultipartStreamParser(boundary: formBoundary)
        let error = try #require(throws: MultipartError.self) { _ = try parser.feed(message) }
        #expect(error.code == "bad_multipart")
        #expect(error.message.contains("'X'"))
        #expect(throws: error) { _ = try parser.feed(bytes("anything")) }
        #expect(throws: error) { try parser.finish() }
    }

    @Test(arguments: [
        "no boundary here at all",
        "--\(formBoundary)\r\nContent-Disposition: form-data; name=\"cut\"\r\n\r\nthe body stops here",
        "--\(formBoundary)\r\nContent-Disposition: form-da",
        "--\(formBoundary)\r\n\r\nbody\r\n--\(formBoundary)",
        "--\(formBoundary)\r\n\r\nbody\r\n--\(formBoundary)-",
        "--\(formBoundary)\r\n\r\nbody\r\n--\(formBoundary)\r",
    ])
    func aMissingClosingBoundaryFailsAtFinish(truncated: String) throws {
        var parser = try MultipartStreamParser(boundary: formBoundary)
        _ = try parser.feed(bytes(truncated))
        let error = #expect(throws: MultipartError.self) { try parser.finish() }
        #expect(error?.code == "bad_multipart")
        #expect(error?.message.contains(formBoundary) == true)
    }

    @Test func errorsDescribeTheirCodeAndTheFix() {
        let error = MultipartError("bad_multipart", "the body ended early: close the form")
        #expect(error.description == "bad_multipart: the body ended early: close the form")
    }
}

// MARK: - Helpers

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A form with `--boundary` lines, each part's header lines, a blank line and its body.
private func form(_ parts: [([String], [UInt8])], boundary: String = formBoundary) -> [UInt8] {
    var message: [UInt8] = []
    for (headers, body) in parts {
        message += bytes("--\(boundary)\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n") + body + bytes("\r\n")
    }
    return message + bytes("--\(boundary)--")
}

private func oneByteChunks(_ message: [UInt8]) -> [ArraySlice<UInt8>] { message.indices.map { message[$0...$0] } }

/// Byte runs that start like a delimiter and then are not one.
private func nearMisses(for boundary: String) -> [UInt8] {
    let delimiter = bytes("\r\n--" + boundary)
    var body: [UInt8] = bytes("\r\n--") + bytes("--\(boundary)") + [0x0D, 0x0D, 0x0A, 0x2D] + bytes("\r\n-\r\n\r")
    for length in 1..<delimiter.count { body += delimiter.prefix(length) + [0x00] }
    return body + Array(delimiter.dropLast()) + bytes("\r\n") + [0xFF, 0x0D]
}

private struct ParsedPart {
    var headers: MultipartPartHeaders
    var body: [UInt8]
}

/// Feeds `chunks` (which together are `message`), checks the events come in a valid order, and
/// reassembles the parts.
private func parse(
    _ message: [UInt8],
    boundary: String = formBoundary,
    chunks: [ArraySlice<UInt8>]
) throws -> [ParsedPart] {
    #expect(Array(chunks.joined()) == message, "the chunks cover the message")
    var parser = try MultipartStreamParser(boundary: boundary)
    var parts: [ParsedPart] = []
    var inPart = false
    for chunk in chunks {
        for event in try parser.feed(chunk) {
            switch event {
            case .partBegin(let headers):
                #expect(!inPart, "a part begins inside another")
                parts.append(ParsedPart(headers: headers, body: []))
                inPart = true
            case .body(let bytes):
                #expect(!bytes.isEmpty, "body events are never empty")
                guard inPart else {
                    Issue.record("body bytes outside a part")
                    continue
                }
                parts[parts.count - 1].body += bytes
            case .partEnd:
                #expect(inPart, "a part ends that never began")
                inPart = false
            }
        }
    }
    try parser.finish()
    #expect(!inPart, "the last part was ended")
    return parts
}

private struct GeneratedPart {
    var name: String
    var filename: String?
    var contentType: String?
    var body: [UInt8]

    var headerLines: [String] {
        var disposition = "Content-Disposition: form-data; name=\"\(name)\""
        if let filename { disposition += "; filename=\"\(filename)\"" }
        return [disposition] + (contentType.map { ["Content-Type: \($0)"] } ?? [])
    }
}

private func expect(
    _ parts: [ParsedPart],
    match original: [GeneratedPart],
    _ context: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try #require(parts.count == original.count, "\(context)", sourceLocation: sourceLocation)
    for (parsed, generated) in zip(parts, original) {
        #expect(parsed.headers.name == generated.name, "\(context)", sourceLocation: sourceLocation)
        #expect(parsed.headers.filename == generated.filename, "\(context)", sourceLocation: sourceLocation)
        #expect(parsed.headers.contentType == generated.contentType, "\(context)", sourceLocation: sourceLocation)
        #expect(parsed.body == generated.body, "\(context): part \(generated.name)", sourceLocation: sourceLocation)
    }
}

/// One to five parts with random binary bodies (some empty) salted with near-miss delimiters.
private func randomParts(using random: inout SplitMix64) -> [GeneratedPart] {
    let salt = nearMisses(for: formBoundary)
    return (0..<Int.random(in: 1...5, using: &random)).map { index in
        var body: [UInt8] = []
        let pieces = Int.random(in: 0...6, using: &random)
        for _ in 0..<pieces {
            if Bool.random(using: &random) {
                body += salt.prefix(Int.random(in: 1...salt.count, using: &random))
            } else {
                body += (0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
        }
        let isFile = Bool.random(using: &random)
        return GeneratedPart(
            name: "field\(index)",
            filename: isFile ? "file\(index).bin" : nil,
            contentType: isFile ? "application/octet-stream" : nil,
            body: body
        )
    }
}

/// A tiny seeded generator (SplitMix64) so random chunkings replay identically.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
