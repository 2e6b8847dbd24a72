import Foundation
import GatewayJobModel

/// A PDF as a watermark: its pages become stamp pages the size of the document's first, each
/// holding one of them as a Form XObject drawn with `StampGeometry`'s matrix (scaled, turned,
/// anchored) and opacity — what pdfcpu does — so the stamp's content is copied as it is, text
/// and vectors untouched, never redrawn.
///
/// qpdf does the copying: `--overlay` onto a blank page turns a page of another PDF into a Form
/// XObject with its fonts and images (and `/Rotate` and inherited resources settled), but places
/// it only scaled down to fit and centred. So the blank pages get it that way, and then their
/// drawing instruction alone is rewritten with our matrix through qpdf's JSON update. Which stamp
/// page lands on which document page is pdfcpu's rule for a stamp PDF: page n on page n, its
/// last page on every page past its end.
struct PDFStampPlacement {
    let step: Step
    let what: String

    /// Writes `output`: as many stamp pages as the document can use, `width`×`height` points.
    /// Answers how many pages it has.
    func carrier(
        for mark: PDFOperation.Watermark,
        stamp: String,
        width: Double,
        height: Double,
        documentPages: Int,
        output: String
    ) async throws -> Int {
        let count = min(try await pageCount(of: stamp), max(documentPages, 1))
        let blank = step.prefix + "-blank.pdf"
        try await writeBlank(pages: count, width: width, height: height, as: blank)
        let placed = step.prefix + "-placed.pdf"
        try await step.qpdf([blank, "--overlay", stamp, "--", placed], what)
        let pdf = QPDFJSON(step: step, file: placed)
        guard let pages = try await pdf.section("pages", what: what) as? [[String: Any]], pages.count == count else {
            throw JobFailure(.rejected, code: "operation_failed", "qpdf did not lay the watermark's PDF on its \(count) stamp pages")
        }
        var changes: [String: Any] = [:]
        var maxObject = 0
        for page in pages {
            guard let reference = page["object"] as? String, let contents = (page["contents"] as? [String])?.last else { continue }
            let object = try await pdf.object(reference, what: what)
            maxObject = max(maxObject, object.header["maxobjectid"] as? Int ?? 0)
            let drawing = try await pdf.object(contents, streamData: true, what: what).stream
            let text = (drawing?["data"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            // qpdf's overlay draws the stamp last: `q … cm /Fx1 Do Q`; the blank page's own is `/Fx0`.
            guard let name = text.matches(of: /\/([A-Za-z0-9_.]+)\s+Do/).last.map({ String($0.output.1) }),
                var resources = object.value["/Resources"] as? [String: Any],
                let form = (resources["/XObject"] as? [String: Any])?["/" + name] as? String
            else {
                throw JobFailure(.rejected, code: "operation_failed", "qpdf's overlay of the watermark's PDF has no form to place")
            }
            let box = try await formBox(form)
            let geometry = StampGeometry(
                StampGeometry.Request(mark),
                width: box.width,
                height: box.height,
                pageWidth: width,
                pageHeight: height,
                isText: false
            )
            let matrix = geometry.matrix(x: box.x, y: box.y, width: box.width, height: box.height)
            let numbers = matrix.map { String(format: "%.6f", $0) }.joined(separator: " ")
            // Only the stamp's form: the blank page's `/Fx0` (nothing) is dropped.
            resources["/XObject"] = ["/" + name: form]
            var drawn = "q\n\(numbers) cm\n/\(name) Do\nQ\n"
            if mark.opacity < 1 {
                resources["/ExtGState"] = ["/GSpdfgate": ["/ca": mark.opacity, "/CA": mark.opacity]]
                drawn = "q\n/GSpdfgate gs\n" + drawn + "Q\n"
            }
            var value = object.value
            value["/Resources"] = resources
            value["/Contents"] = contents
            changes["obj:" + reference] = ["value": value]
            changes["obj:" + contents] = ["stream": ["dict": [:] as [String: Any], "data": Data(drawn.utf8).base64EncodedString()]]
        }
        try await pdf.update(changes, maxObject: maxObject, into: output, what: what)
        return count
    }

    /// qpdf's `--to`/`--from` for the chosen pages of a document of `pageCount` pages, with
    /// `stampPages` stamp pages: document page n takes stamp page n, or the last.
    static func pairing(_ pages: [Int], stampPages: Int) -> (to: String, from: String) {
        (pages.map(String.init).joined(separator: ","), pages.map { String(min($0, stampPages)) }.joined(separator: ","))
    }

    /// The form's box in the page's space: its `/BBox` through its `/Matrix` (which qpdf sets
    /// for a turned page), as the smallest upright rectangle.
    private func formBox(_ reference: String) async throws -> (x: Double, y: Double, width: Double, height: Double) {
        let form = try await QPDFJSON(step: step, file: step.prefix + "-placed.pdf").object(reference, what: what).value
        let box = (form["/BBox"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
        guard box.count == 4 else { throw JobFailure(.rejected, code: "invalid_image", "the watermark's PDF has a page without a size") }
        let matrix = (form["/Matrix"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [1, 0, 0, 1, 0, 0]
        let corners = [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])].map { x, y in
            matrix.count == 6 ? (matrix[0] * x + matrix[2] * y + matrix[4], matrix[1] * x + matrix[3] * y + matrix[5]) : (x, y)
        }
        let xs = corners.map(\.0)
        let ys = corners.map(\.1)
        let (x, y) = (xs.min()!, ys.min()!)
        return (x, y, xs.max()! - x, ys.max()! - y)
    }

    private func pageCount(of file: String) async throws -> Int {
        let finished = try await step.runner.run(.qpdf, ["--show-npages", file], in: step.work, what: what, deadline: step.deadline)
        guard finished.status == 0 || finished.status == 3, let count = Int(finished.log.split(separator: "\n").first.map(String.init) ?? ""),
            count > 0
        else {
            // The client's file: a PDF qpdf cannot read (or one without pages) is theirs to fix.
            throw JobFailure(.rejected, code: "invalid_image", "the watermark's PDF cannot be read: \(finished.log)")
        }
        return count
    }

    /// Blank pages written as qpdf JSON and made a PDF by qpdf: no PDF syntax of ours.
    private func writeBlank(pages count: Int, width: Double, height: Double, as name: String) async throws {
        var objects: [String: Any] = [
            "obj:1 0 R": ["value": ["/Type": "/Catalog", "/Pages": "2 0 R"]],
            "obj:2 0 R": ["value": ["/Type": "/Pages", "/Count": count, "/Kids": (0..<count).map { "\(3 + 2 * $0) 0 R" }]],
            "trailer": ["value": ["/Root": "1 0 R", "/Size": 3 + 2 * count]],
        ]
        for index in 0..<count {
            let page = 3 + 2 * index
            objects["obj:\(page) 0 R"] = [
                "value": [
                    "/Type": "/Page", "/Parent": "2 0 R", "/MediaBox": [0, 0, width, height], "/Contents": "\(page + 1) 0 R", "/Resources": [:],
                ]
            ]
            objects["obj:\(page + 1) 0 R"] = ["stream": ["dict": [:] as [String: Any], "data": ""]]
        }
        let document: [String: Any] = [
            "qpdf": [
                [
                    "jsonversion": 2, "pdfversion": "1.7", "pushedinheritedpageresources": false, "calledgetallpages": false,
                    "maxobjectid": 2 + 2 * count,
                ],
                objects,
            ]
        ]
        let json = step.prefix + "-blank.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: step.work + "/" + json))
        defer { try? FileManager.default.removeItem(atPath: step.work + "/" + json) }
        try await step.qpdf(["--json-input", json, name], what)
    }
}
