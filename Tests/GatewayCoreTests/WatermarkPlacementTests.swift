import Foundation
import Testing

@testable import GatewayJobModel

/// The watermark's placement: pdfcpu's geometry, and the wire form that keeps it.
@Suite struct WatermarkPlacementTests {
    typealias Mark = PDFOperation.Watermark

    static func geometry(_ change: (inout Mark) -> Void, width: Double = 100, height: Double = 20) -> StampGeometry {
        var mark = Mark.pdfcpu(layer: .over, text: "X", image: nil)
        change(&mark)
        return StampGeometry(StampGeometry.Request(mark), width: width, height: height, pageWidth: 600, pageHeight: 800, isText: true)
    }

    @Test func pdfcpuDefaultsTakeHalfThePageAlongItsDiagonal() {
        let centred = Self.geometry { _ in }
        #expect(abs(centred.factor - 3) < 1e-9, "half of 600 points for a mark 100 wide")
        #expect(abs(centred.angle - atan(800.0 / 600) * 180 / .pi) < 1e-9)
        #expect(centred.centerX == 300 && centred.centerY == 400)
        // Taller than wide: a quarter turn back.
        let tall = Self.geometry({ _ in }, width: 20, height: 100)
        #expect(abs(tall.angle - (atan(800.0 / 600) * 180 / .pi - 90)) < 1e-9 && abs(tall.factor - 4) < 1e-9)
    }

    @Test func positionAndOffsetAnchorTheUnturnedBox() {
        let corner = Self.geometry {
            $0.position = .topLeft
            $0.diagonal = nil
            $0.sizing = .absolute
            $0.scale = 1
            ($0.offsetX, $0.offsetY) = (10, -5)
        }
        #expect(corner.centerX == 50 + 10 && corner.centerY == 790 - 5 && corner.factor == 1)
        // A quarter turn off the centre lines the turned box up with the edges.
        let turned = Self.geometry {
            $0.position = .bottomRight
            $0.diagonal = nil
            $0.angle = 90
            $0.sizing = .absolute
            $0.scale = 1
        }
        #expect(turned.centerX == 590 && turned.centerY == 50)
        // The matrix maps the box's centre to the geometry's.
        let matrix = turned.matrix(x: 0, y: 0, width: 100, height: 20)
        #expect(abs(matrix[0] * 50 + matrix[2] * 10 + matrix[4] - 590) < 1e-9 && abs(matrix[1] * 50 + matrix[3] * 10 + matrix[5] - 50) < 1e-9)
    }

    @Test func theWireFormKeepsEveryPlacementField() throws {
        let json = #"""
            [{"op":"watermark","text":"DRAFT","layer":"under","position":"bottom_right","offset":[-20,15],"sizing":"absolute",
              "scale":2,"diagonal":"down","color":"#CC0000","stroke_color":"#0000FF","render_mode":"fill_stroke","font":"Times-BoldItalic"}]
            """#
        let parsed = try JSONDecoder().decode([PDFOperation].self, from: Data(json.utf8))
        guard case .watermark(let mark) = parsed.first else {
            Issue.record("\(parsed)")
            return
        }
        #expect(mark.layer == .under && mark.position == .bottomRight && mark.offsetX == -20 && mark.offsetY == 15)
        #expect(mark.sizing == .absolute && mark.scale == 2 && mark.diagonal == .down && mark.renderMode == .fillStroke)
        #expect(mark.color?.hex == "#CC0000" && mark.font == Mark.Font(family: .times, bold: true, italic: true))
        let again = try JSONDecoder().decode([PDFOperation].self, from: try JSONEncoder().encode(parsed))
        #expect(again == parsed)
    }

    @Test(
        "the wire form refuses what it cannot draw, naming the field",
        arguments: [
            (#"{"op":"watermark","text":"x","position":"middle"}"#, "position"),
            (#"{"op":"watermark","text":"x","angle":10,"diagonal":"up"}"#, "angle"),
            (#"{"op":"watermark","text":"x","offset":[1]}"#, "offset"),
            (#"{"op":"watermark","text":"x","color":"red"}"#, "color"),
            (#"{"op":"watermark","text":"x","font":"Arial"}"#, "font"),
            (#"{"op":"watermark","text":"x","scale":2}"#, "scale"),
            (##"{"op":"watermark","image_sha256":"ab","color":"#000000"}"##, "color"),
            (#"{"op":"watermark","image":"JVBERg=="}"#, "image"),
        ]
    )
    func refusals(json: String, field: String) {
        #expect {
            try JSONDecoder().decode([PDFOperation].self, from: Data("[\(json)]".utf8))
        } throws: { error in
            (error as? OperationError)?.message.contains(field) == true
        }
    }

    @Test func aPDFIsAnImageOfItsOwnFormat() throws {
        let pdf = Data("%PDF-1.7\n%%EOF\n".utf8)
        let parsed = try JSONDecoder().decode([PDFOperation].self, from: Data(#"[{"op":"watermark","image":"\#(pdf.base64EncodedString())"}]"#.utf8))
        guard case .watermark(let mark) = parsed.first else { return }
        #expect(mark.image?.format == .pdf && mark.image?.data == pdf)
        let written = String(decoding: try JSONEncoder().encode(parsed), as: UTF8.self)
        #expect(written.contains(#""image_format":"pdf""#) && !written.contains(pdf.base64EncodedString()), "\(written)")
    }
}
