import Foundation
import GatewayJobModel
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer

/// Gotenberg's stamps and watermarks as pdfcpu draws them: a PDF laid over (stamp) or under
/// (watermark) the chosen pages, and pdfcpu's description keys (`position`, `offset`,
/// `fillcolor`…) honoured or refused by name. Checked with Poppler's tools and ImageMagick.
@Suite("Gotenberg's stamps and watermarks")
struct GotenbergStampsTests {
    let scratch = TemporaryDirectory("gotenberg-stamps")

    func saved(_ response: TestResponse) throws -> String {
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        let path = scratch.file(UUID().uuidString + ".pdf")
        try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Text in drawing order (`-raw`): what is drawn first comes first.
    func text(_ path: String, page: Int) async throws -> String {
        try await run("/usr/bin/pdftotext", ["-raw", "-f", "\(page)", "-l", "\(page)", path, "-"]).stdout
    }

    /// Where `word` lies on page 1, in points from the top left, and the page's size.
    func box(
        of word: String,
        in path: String
    ) async throws -> (xMin: Double, yMin: Double, xMax: Double, yMax: Double, width: Double, height: Double)? {
        let html = try await run("/usr/bin/pdftotext", ["-bbox", "-f", "1", "-l", "1", path, "-"]).stdout
        guard let page = html.firstMatch(of: /<page width="([\d.]+)" height="([\d.]+)"/),
            let found = html.firstMatch(of: try Regex(#"xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)">"# + word + "<"))
        else { return nil }
        let numbers = (1...4).compactMap { Double(found.output[$0].substring ?? "") }
        guard numbers.count == 4 else { return nil }
        return (numbers[0], numbers[1], numbers[2], numbers[3], Double(page.output.1) ?? 0, Double(page.output.2) ?? 0)
    }

    /// Page 1 at 20 dpi: pixels whose colour `matches`, as fractions of the width and height.
    func pixels(_ path: String, matching matches: (Int, Int, Int) -> Bool) async throws -> [(x: Double, y: Double)] {
        let prefix = scratch.file(UUID().uuidString)
        _ = try await run("/usr/bin/pdftoppm", ["-r", "20", "-f", "1", "-l", "1", "-singlefile", "-png", path, prefix])
        let listing = try await run(try which("convert"), [prefix + ".png", "-depth", "8", "txt:-"]).stdout
        let size = listing.firstMatch(of: /: (\d+),(\d+),/).map { (Double($0.1) ?? 1, Double($0.2) ?? 1) } ?? (1, 1)
        // `x,y: (r,g,b…)  #RRGGBB  name`, a line a pixel: split, not a regex, which takes
        // seconds over a page's tens of thousands of lines in a debug build.
        return listing.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(maxSplits: 5) { $0 == "," || $0 == ":" || $0 == "(" || $0 == ")" || $0 == " " }
            guard fields.count >= 5, let x = Double(fields[0]), let y = Double(fields[1]),
                let r = Int(fields[2]), let g = Int(fields[3]), let b = Int(fields[4]), matches(r, g, b)
            else { return nil }
            return (x / size.0, y / size.1)
        }
    }

    @Test("a PDF stamp lies over the chosen pages only; a PDF watermark under the page's content")
    func pdfStampAndWatermark() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let stamped = try saved(
                try await GotenbergAPITests.post(
                    client,
                    "/forms/pdfengines/stamp",
                    [
                        .file("files", path: Fixtures.pdf("many-pages.pdf")), .text("stampSource", "pdf"), .text("stampPages", "2-3"),
                        .file("stamp", path: Fixtures.pdf("one-page.pdf")), .text("stampOptions", #"{"rotation":"0"}"#),
                    ]
                )
            )
            for page in 1...4 {
                let words = try await text(stamped, page: page)
                #expect(words.contains("One Page Fixture") == (2...3).contains(page), "page \(page): \(words)")
                #expect(words.contains("Page \(page) of 12"), "the page's own text stays: \(words)")
            }
            // Over: drawn after the page's own text.
            let over = try await text(stamped, page: 2)
            let overOrder = (over.range(of: "Page 2 of 12")?.lowerBound, over.range(of: "One Page Fixture")?.lowerBound)
            #expect(overOrder.0 != nil && overOrder.1 != nil && overOrder.0! < overOrder.1!, "\(over)")

            let watermarked = try saved(
                try await GotenbergAPITests.post(
                    client,
                    "/forms/pdfengines/watermark",
                    [
                        .file("files", path: Fixtures.pdf("many-pages.pdf")), .text("watermarkSource", "pdf"),
                        .file("watermark", path: Fixtures.pdf("one-page.pdf")), .text("watermarkOptions", #"{"rotation":"0","opacity":"0.5"}"#),
                    ]
                )
            )
            // Under: drawn before the page's own text, on every page.
            for page in [1, 12] {
                let under = try await text(watermarked, page: page)
                let order = (under.range(of: "One Page Fixture")?.lowerBound, under.range(of: "Page \(page) of 12")?.lowerBound)
                #expect(order.0 != nil && order.1 != nil && order.0! < order.1!, "page \(page): \(under)")
            }
        }
    }

    @Test("position and offset move a text, PDF or image stamp; fillcolor colours its text")
    func positionOffsetAndColour() async throws {
        let gateway = try await InProcessGateway()
        let blue = scratch.file("blue.png")
        _ = try await run(try which("convert"), ["-size", "60x60", "xc:#0000FF", blue])
        try await gateway.run(converting: true) { client in
            func stamp(_ parts: [FormPart]) async throws -> String {
                try saved(
                    try await GotenbergAPITests.post(
                        client,
                        "/forms/pdfengines/stamp",
                        [.file("files", path: Fixtures.pdf("many-pages.pdf"))] + parts
                    )
                )
            }
            let options = ##"{"position":"tl","rotation":"0","scalefactor":"1 abs","points":"40","fillcolor":"#FF0000"}"##
            let topLeft = try await stamp([.text("stampSource", "text"), .text("stampExpression", "MARKED"), .text("stampOptions", options)])
            let corner = try #require(try await box(of: "MARKED", in: topLeft))
            #expect(corner.xMin < 0.05 * corner.width && corner.yMin < 0.05 * corner.height, "\(corner)")

            let moved = try await stamp([
                .text("stampSource", "text"), .text("stampExpression", "MARKED"),
                .text("stampOptions", #"{"pos":"bl","off":"100 50","rot":"0","scalef":"1 abs"}"#),
            ])
            let shifted = try #require(try await box(of: "MARKED", in: moved))
            #expect(abs(shifted.xMin - 100) < 4 && abs(shifted.height - shifted.yMax - 50) < 8, "\(shifted)")

            // fillcolor: red pixels where the text is, in the top left; none without it.
            let red = try await pixels(topLeft) { r, g, b in r > 200 && g < 80 && b < 80 }
            #expect(!red.isEmpty && red.allSatisfy { $0.x < 0.6 && $0.y < 0.15 }, "\(red.count) red pixels")
            let grey = try await stamp([
                .text("stampSource", "text"), .text("stampExpression", "MARKED"), .text("stampOptions", #"{"rotation":"0"}"#),
            ])
            #expect(try await pixels(grey) { r, g, b in r > 200 && g < 80 && b < 80 }.isEmpty)

            // A PDF stamp, top right.
            let pdf = try await stamp([
                .text("stampSource", "pdf"), .file("stamp", path: Fixtures.pdf("one-page.pdf")),
                .text("stampOptions", #"{"position":"tr","rotation":"0","scalefactor":"0.5"}"#),
            ])
            let placed = try #require(try await box(of: "Fixture", in: pdf))
            #expect(placed.xMin > 0.5 * placed.width && placed.yMax < 0.5 * placed.height, "\(placed)")

            // A PNG stamp, bottom right.
            let image = try await stamp([
                .text("stampSource", "image"), .file("stamp", path: blue), .text("stampOptions", #"{"position":"br","rotation":"0","scale":"0.2"}"#),
            ])
            let bluePixels = try await pixels(image) { r, g, b in b > 200 && r < 60 && g < 60 }
            #expect(!bluePixels.isEmpty && bluePixels.allSatisfy { $0.x > 0.7 && $0.y > 0.7 }, "\(bluePixels.count) blue pixels")
        }
    }

    @Test("a key pdfgate does not draw is refused by name; a missing file has Gotenberg's words")
    func refusals() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            func post(_ route: String, _ parts: [FormPart]) async throws -> (HTTPResponse.Status, String) {
                let response = try await GotenbergAPITests.post(client, route, [.file("files", path: Fixtures.pdf("one-page.pdf"))] + parts)
                return (response.status, String(buffer: response.body))
            }
            let border = try await post(
                "/forms/pdfengines/stamp",
                [.text("stampSource", "text"), .text("stampExpression", "X"), .text("stampOptions", #"{"border":"2 #FF0000"}"#)]
            )
            #expect(border.0 == .badRequest && border.1.contains("'border'") && border.1.contains("does not draw"), "\(border.1)")
            let ambiguous = try await post(
                "/forms/pdfengines/watermark",
                [.text("watermarkSource", "text"), .text("watermarkExpression", "X"), .text("watermarkOptions", #"{"sc":"0.5"}"#)]
            )
            #expect(ambiguous.0 == .badRequest && ambiguous.1.contains("scalefactor, scriptname"), "\(ambiguous.1)")

            for kind in ["stamp", "watermark"] {
                let missing = try await post("/forms/pdfengines/\(kind)", [.text("\(kind)Source", "pdf")])
                #expect(missing.0 == .badRequest, "\(missing.1)")
                #expect(missing.1 == "Invalid form data: a \(kind) file is required for image or pdf source", "\(missing.1)")
            }
            let notPDF = try await post(
                "/forms/pdfengines/stamp",
                [.text("stampSource", "pdf"), .file("stamp", path: Fixtures.pdf("not-a-pdf.pdf"))]
            )
            #expect(notPDF.0 == .badRequest && notPDF.1.contains("is not a PDF"), "\(notPDF.1)")
        }
    }

    @Test(
        "pdfcpu's keys are read as pdfcpu reads them: unambiguous prefixes, its value syntax",
        arguments: [
            (#"{"pos":"br"}"#, nil),
            (#"{"position":"top-left","offset":"-20 15.5"}"#, nil),
            (#"{"fillc":"1 0 0","strokecolor":"blue","mode":"2"}"#, nil),
            (##"{"color":"#00ff00","fontname":"Times-Italic","points":48}"##, nil),
            (#"{"scalefactor":"2"}"#, nil),
            (#"{"po":"12"}"#, "points, position"),
            (#"{"position":"middle"}"#, "not a position"),
            (#"{"offset":"10"}"#, "two numbers"),
            (##"{"fillcolor":"#FF00"}"##, "not a colour"),
            (#"{"fontname":"Arial"}"#, "Helvetica"),
            (#"{"scalefactor":"2 rel"}"#, "relative factor above 1"),
            (#"{"rotation":"10","diagonal":"2"}"#, "both rotation and diagonal"),
            (#"{"rtl":"on"}"#, "'rtl'"),
            (#"{"wobble":"1"}"#, "not one of pdfcpu's keys"),
        ] as [(String, String?)]
    )
    func optionParsing(options: String, problem: String?) throws {
        let decoded = try JSONDecoder().decode([String: GotenbergTestScalar].self, from: Data(options.utf8)).mapValues(\.text)
        var mark = PDFOperation.Watermark.pdfcpu(layer: .over, text: "X", image: nil)
        do {
            try GotenbergMarkOptions.apply(decoded, to: &mark, field: "stampOptions")
            #expect(problem == nil, "no refusal for \(options)")
        } catch {
            #expect(problem.map { error.message.contains($0) } == true, "\(options): \(error.message)")
        }
    }

    @Test func optionValuesLandInTheMark() throws {
        var mark = PDFOperation.Watermark.pdfcpu(layer: .under, text: "X", image: nil)
        let options = [
            "pos": "br", "off": "-20 15", "fillc": "#FF0000", "stroke": "0 0 1", "rendermode": "1", "fontname": "Courier-Bold",
            "sc": "2 abs",
        ]
        #expect(throws: GotenbergError.self) { try GotenbergMarkOptions.apply(options, to: &mark, field: "f") }
        try GotenbergMarkOptions.apply(options.filter { $0.key != "sc" }.merging(["scalef": "2 abs"]) { $1 }, to: &mark, field: "f")
        #expect(mark.position == .bottomRight && mark.offsetX == -20 && mark.offsetY == 15)
        #expect(mark.color == .init(red: 1, green: 0, blue: 0) && mark.strokeColor == .init(red: 0, green: 0, blue: 1))
        #expect(mark.renderMode == .stroke && mark.font == .init(family: .courier, bold: true))
        #expect(mark.sizing == .absolute && mark.scale == 2 && mark.diagonal == .up && mark.layer == .under)
    }
}

/// A JSON string or number as text, as the door reads `…Options`.
struct GotenbergTestScalar: Decodable {
    var text: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else {
            let number = try container.decode(Double.self)
            text = number == number.rounded() ? String(Int(number)) : String(number)
        }
    }
}
