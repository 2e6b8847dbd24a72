import Foundation
import GatewayHTTPServing
import GatewayJobModel

/// Gotenberg's watermark and stamp fields, read as our watermark operation.
extension GotenbergPostProcessing {
    /// `watermarkSource`/`stampSource` and their aligned `…Expression`, `…Pages`, `…Options`,
    /// repeatable; an image or a PDF comes in the file field named `watermark`/`stamp`, in order.
    /// Drawn as pdfcpu draws Gotenberg's: a watermark under the page's content, a stamp over it,
    /// with pdfcpu's defaults for what the options do not say.
    mutating func readMarks(_ prefix: String, _ fields: inout GotenbergFields, files: [MultipartForm.File]) throws(GotenbergError) {
        let sources = fields.all(prefix + "Source")
        let expressions = fields.all(prefix + "Expression")
        let pages = fields.all(prefix + "Pages")
        let options = fields.all(prefix + "Options")
        var uploads = files.filter { $0.field == prefix }.makeIterator()
        let layer: PDFOperation.Watermark.Layer = prefix == "stamp" ? .over : .under
        for (index, source) in sources.enumerated() {
            let at = { (values: [String]) in index < values.count && !values[index].isEmpty ? values[index] : nil }
            var mark: PDFOperation.Watermark
            switch source {
            case "text":
                guard let text = at(expressions) else {
                    fields.append("form field '\(prefix)Expression' is required for a text source")
                    continue
                }
                mark = .pdfcpu(layer: layer, text: text, image: nil)
            case "image", "pdf":
                guard let file = uploads.next() else {
                    fields.append("a \(prefix) file is required for image or pdf source")
                    continue
                }
                let described = "the \(prefix) file '\(file.filename ?? "")'"
                do {
                    let data = try Data(contentsOf: URL(fileURLWithPath: file.path))
                    let image =
                        try source == "pdf"
                        ? PDFOperation.StampImage.pdf(data, field: described) : PDFOperation.StampImage.png(data, field: described)
                    mark = .pdfcpu(layer: layer, text: nil, image: image)
                } catch let error as OperationError {
                    throw GotenbergError(.badRequest, error.message)
                } catch {
                    throw GotenbergError(.internalServerError)
                }
            default:
                fields.invalid(prefix + "Source", source, "wrong value, expected either 'text', 'image' or 'pdf'")
                continue
            }
            if let text = at(pages) {
                guard let selection = try? PageSelection(text, field: prefix + "Pages") else {
                    fields.invalid(prefix + "Pages", text, "wrong value, expected a page range such as '1-3,5'")
                    continue
                }
                mark.pages = selection
            }
            if let text = at(options) {
                // pdfcpu's descriptions are text (`"0.5 abs"`); clients also send bare numbers.
                let decoded = (try? JSONDecoder().decode([String: Scalar].self, from: Data(text.utf8)))?.mapValues(\.text)
                guard let decoded else {
                    fields.append("form field '\(prefix)Options' is invalid")
                    continue
                }
                try GotenbergMarkOptions.apply(decoded, to: &mark, field: prefix + "Options")
                if mark.text == nil {
                    // pdfcpu reads them for any source; they colour and set text only.
                    (mark.color, mark.strokeColor, mark.font, mark.renderMode) = (nil, nil, nil, .fill)
                }
            }
            operations.append(.watermark(mark))
        }
    }

    /// A JSON string or number, as text.
    struct Scalar: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else {
                let number = try container.decode(Double.self)
                // `48`, not `48.0`: pdfcpu reads whole numbers for points.
                text = number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            }
        }
    }
}
