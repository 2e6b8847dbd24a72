import Foundation
import GatewayJobModel
import Testing

/// The wire form and the rules of `PDFOperation`, `PageSelection` and split parts, without tools.
@Suite("PDF operations: wire form and rules")
struct PDFOperationTests {
    static func decode(_ json: String) throws -> [PDFOperation] {
        try JSONDecoder().decode([PDFOperation].self, from: Data(json.utf8))
    }

    @Test func pageSelectionsReadTheUsualFormsAndRefuseTheRest() throws {
        #expect(try PageSelection("1-3,5,8-").pages(of: 9) == [1, 2, 3, 5, 8, 9])
        #expect(try PageSelection("2").qpdfRange == "2")
        #expect(try PageSelection("4-").qpdfRange == "4-z")
        for bad in ["", "0", "3-1", "a", "1,,2", "-2"] {
            #expect(throws: OperationError.self, "'\(bad)'") { try PageSelection(bad) }
        }
        let error = try #require(throws: OperationError.self) { try PageSelection("2-14").pages(of: 12) }
        #expect(error.code == "page_range_out_of_bounds" && error.message.contains("12 pages"))
    }

    @Test func operationsAreStrictAndNameWhatIsWrong() throws {
        let parsed = try Self.decode(#"[{"op":"rotate","angle":-90,"pages":"1"},{"op":"pdfa"},{"op":"optimize","images":"keep"}]"#)
        #expect(parsed == [.rotate(angle: -90, pages: try PageSelection("1")), .pdfa(.a2b), .optimize(.init(images: .keep, linearize: true))])
        let unknownField = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"flatten","pages":"1"}]"#) }
        #expect(unknownField.message.contains("pages") && unknownField.message.contains("takes none"))
        let unknownOp = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"explode"}]"#) }
        #expect(unknownOp.message.contains("split, rotate"))
        let mark = try Self.decode(#"[{"op":"watermark","text":"DRAFT","pages":"1-2"}]"#)
        #expect(mark == [.watermark(.init(text: "DRAFT", pages: try PageSelection("1-2")))])
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"watermark","text":"x","opacity":2}]"#) }
        let badDate = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"metadata","creation_date":"yesterday"}]"#) }
        #expect(badDate.message.contains("ISO 8601"))
    }

    /// `split` by `pages`: one part per page of the selection, written back as it was read;
    /// two ways of splitting at once are refused.
    @Test func splitByPagesRoundTripsAndExcludesTheOtherWays() throws {
        let parsed = try Self.decode(#"[{"op":"split","pages":"2-4,9-"}]"#)
        #expect(parsed == [.split(.pages(try PageSelection("2-4,9-")))])
        let written = try JSONDecoder().decode([PDFOperation].self, from: try JSONEncoder().encode(parsed))
        #expect(written == parsed)
        let both = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"split","pages":"1","every":2}]"#) }
        #expect(both.message.contains("pages (one part per page of the range)"))
        let outside = try #require(throws: OperationError.self) { try parsed.checkPages(pageCount: 3) }
        #expect(outside.code == "page_range_out_of_bounds")
    }

    /// An outline: Gotenberg's shape, round-tripped; empty titles, page 0, too deep and pages past
    /// the end refused by name.
    @Test func bookmarksRoundTripAndAreChecked() throws {
        let parsed = try Self.decode(#"[{"op":"bookmarks","items":[{"title":"Index","page":1,"children":[{"title":"Sub","page":3}]}]}]"#)
        #expect(parsed == [.bookmarks([PDFBookmark(title: "Index", page: 1, children: [PDFBookmark(title: "Sub", page: 3)])])])
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(try JSONDecoder().decode([PDFOperation].self, from: Data(written.utf8)) == parsed)
        #expect(!written.contains(#""children":[]"#), "a leaf has no children key: \(written)")
        let blank = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"bookmarks","items":[{"title":" ","page":1}]}]"#) }
        #expect(blank.message.contains("items[0].title"), "\(blank.message)")
        let zero = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"bookmarks","items":[{"title":"A","page":0}]}]"#) }
        #expect(zero.message.contains("items[0].page"), "\(zero.message)")
        var deep = PDFBookmark(title: "leaf", page: 1)
        for _ in 0..<PDFBookmark.maxDepth { deep = PDFBookmark(title: "level", page: 1, children: [deep]) }
        #expect(throws: OperationError.self) { try PDFBookmark.check([deep], field: "items") }
        // Side by side, at most 500, as openapi.yaml says (schemathesis made a query of thousands).
        let wide = (0...PDFBookmark.maxSiblings).map { PDFBookmark(title: "\($0)", page: 1) }
        let tooWide = try #require(throws: OperationError.self) { try PDFBookmark.check(wide, field: "items") }
        #expect(tooWide.message.contains("at most 500"), "\(tooWide.message)")
        let past = try #require(throws: OperationError.self) { try parsed.checkPages(pageCount: 2) }
        #expect(past.code == "page_range_out_of_bounds" && past.message.contains("page 3"), "\(past.message)")
    }

    /// An image watermark: a base64 PNG in, only its hash and size out; anything else refused.
    @Test func watermarkImagesAreCheckedAndNeverWritten() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let parsed = try Self.decode(#"[{"op":"watermark","image":"\#(png.base64EncodedString())","scale":0.3}]"#)
        guard case .watermark(let mark) = parsed.first, let image = mark.image else {
            Issue.record("not an image watermark: \(parsed)")
            return
        }
        #expect(image.data == png && image.bytes == png.count && image.sha256 == JobSecrets.sha256(png) && mark.scale == 0.3)
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(!written.contains(png.base64EncodedString()) && written.contains(image.sha256), "\(written)")
        // What was written reads back (a stored spec) without the bytes.
        let stored = try JSONDecoder().decode([PDFOperation].self, from: Data(written.utf8))
        guard case .watermark(let back) = stored.first else { return }
        #expect(back.image == PDFOperation.StampImage(sha256: image.sha256, bytes: png.count))

        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]).base64EncodedString()
        let notPNG = try #require(throws: OperationError.self) { try Self.decode(#"[{"op":"watermark","image":"\#(jpeg)"}]"#) }
        #expect(notPNG.message.contains("not a PNG"))
        let both = try #require(throws: OperationError.self) {
            try Self.decode(#"[{"op":"watermark","text":"x","image":"\#(png.base64EncodedString())"}]"#)
        }
        #expect(both.message.contains("one of the two"))
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"watermark"}]"#) }
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"watermark","image":"\#(png.base64EncodedString())","scale":0}]"#) }
    }

    @Test func passwordsAreReadButNeverWritten() throws {
        let parsed = try Self.decode(#"[{"op":"encrypt","user_password":"u","owner_password":"o","allow":["print"]}]"#)
        guard case .encrypt(let encryption) = parsed.first else {
            Issue.record("not encrypt: \(parsed)")
            return
        }
        #expect(encryption.userPassword == "u" && encryption.allow == [.print])
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(!written.contains("\"u\"") && !written.contains("\"o\"") && written.contains("print"))
    }

    @Test func orderRulesKeepEncryptLastAndPDFAAfterChanges() throws {
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"encrypt","user_password":"a"},{"op":"flatten"}]"#).checkOrder() }
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"pdfa"},{"op":"rotate","angle":90}]"#).checkOrder() }
        #expect(throws: OperationError.self) { try Self.decode(#"[{"op":"split","every":1},{"op":"split","every":2}]"#).checkOrder() }
        try Self.decode(#"[{"op":"rotate","angle":90},{"op":"pdfa"},{"op":"split","every":2}]"#).checkOrder()
        let (before, encrypt) = try Self.decode(#"[{"op":"flatten"},{"op":"encrypt","owner_password":"o"}]"#).splittingOffEncryption
        #expect(before == [.flatten] && encrypt?.name == "encrypt")
    }

    @Test func facturXIsReadStrictlyKeptWithoutItsXMLAndFollowsPDFA3() throws {
        let xml = Data("<Invoice/>".utf8).base64EncodedString()
        let parsed = try Self.decode(#"[{"op":"pdfa","part":"3b"},{"op":"facturx","conformance_level":"BASIC WL","xml":"\#(xml)"}]"#)
        try parsed.checkOrder()
        guard case .facturX(let invoice) = parsed.last else {
            Issue.record("not facturx: \(parsed)")
            return
        }
        #expect(invoice.conformanceLevel == .basicWL && invoice.documentType == .invoice && invoice.version == "1.0")
        #expect(invoice.xml.name == FacturX.fileName && invoice.xml.relationship == .alternative && invoice.xml.mimeType == "text/xml")
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(!written.contains(xml) && written.contains("xml_sha256"), "\(written)")
        // Read back from its stored form, as a job's row holds it.
        #expect(try JSONDecoder().decode([PDFOperation].self, from: Data(written.utf8)).last?.name == "facturx")
        for (json, words) in [
            (#"[{"op":"facturx","conformance_level":"BASIC","xml":"\#(xml)"}]"#, "put {\"op\": \"pdfa\", \"part\": \"3b\"} before it"),
            (#"[{"op":"pdfa","part":"2b"},{"op":"facturx","conformance_level":"BASIC","xml":"\#(xml)"}]"#, "only PDF/A-3b does"),
            (#"[{"op":"facturx","conformance_level":"BASIC","xml":"\#(xml)"},{"op":"pdfa","part":"3b"}]"#, "must come after pdfa"),
        ] {
            do {
                try Self.decode(json).checkOrder()
                Issue.record("\(json) must be refused")
            } catch let error as OperationError {
                #expect(error.code == "contradictory_operations" && error.message.contains(words), "\(error.message)")
            }
        }
        for json in [
            #"[{"op":"facturx","xml":"\#(xml)"}]"#, #"[{"op":"facturx","conformance_level":"GOLD","xml":"\#(xml)"}]"#,
            #"[{"op":"facturx","conformance_level":"BASIC","version":"one","xml":"\#(xml)"}]"#, #"[{"op":"facturx","conformance_level":"BASIC"}]"#,
            #"[{"op":"facturx","conformance_level":"BASIC","document_type":"RECEIPT","xml":"\#(xml)"}]"#,
        ] {
            #expect(throws: OperationError.self, "\(json)") { try Self.decode(json) }
        }
        #expect(throws: OperationError.self) {
            try Self.decode(#"[{"op":"facturx","conformance_level":"BASIC","xml":"\#(Data("<a>".utf8).base64EncodedString())"}]"#)
        }
    }

    @Test func splitPartsHaveDistinctStableIDsAndTheStateRemembersHowMany() throws {
        let job = UUID()
        #expect(Job.documentID(for: job, part: 0) == Job.documentID(for: job))
        let ids = (0..<PDFOperation.maxParts).map { Job.documentID(for: job, part: $0) }
        #expect(Set(ids).count == ids.count && !ids.contains(job))
        var state = JobStateMachine(needsUpload: false, deadline: Date().addingTimeInterval(60))
        var random = SystemRandomNumberGenerator()
        _ = try state.handle(.started, now: Date(), random: &random)
        _ = try state.handle(.filed(ids[0], parts: 3), now: Date(), random: &random)
        let stored = try JSONDecoder().decode(JobStateMachine.self, from: JSONEncoder().encode(state))
        #expect(stored.parts == 3 && stored.documentID == ids[0])
    }
}
