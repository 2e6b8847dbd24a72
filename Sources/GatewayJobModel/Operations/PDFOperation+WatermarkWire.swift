import Foundation

/// The watermark's JSON form: strict like the rest (a value outside its list is refused naming
/// the list), and what a stored spec keeps reads back the same.
extension PDFOperation {
    static func encode(_ mark: Watermark, into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encodeIfPresent(mark.text, forKey: Key("text"))
        if let image = mark.image {
            // Never the bytes: they wait beside the job's input while it runs.
            try container.encode(image.sha256, forKey: Key("image_sha256"))
            try container.encode(image.bytes, forKey: Key("image_bytes"))
            if image.format != .png { try container.encode(image.format.rawValue, forKey: Key("image_format")) }
        } else {
            try container.encode(mark.fontSize, forKey: Key("font_size"))
        }
        if mark.image != nil || mark.sizing != .fit { try container.encode(mark.scale, forKey: Key("scale")) }
        try container.encodeIfPresent(mark.pages, forKey: Key("pages"))
        try container.encode(mark.opacity, forKey: Key("opacity"))
        if let diagonal = mark.diagonal {
            try container.encode(diagonal.rawValue, forKey: Key("diagonal"))
        } else {
            try container.encode(mark.angle, forKey: Key("angle"))
        }
        if mark.layer != .over { try container.encode(mark.layer.rawValue, forKey: Key("layer")) }
        if mark.position != .center { try container.encode(mark.position.rawValue, forKey: Key("position")) }
        if mark.offsetX != 0 || mark.offsetY != 0 { try container.encode([mark.offsetX, mark.offsetY], forKey: Key("offset")) }
        if mark.sizing != .fit { try container.encode(mark.sizing.rawValue, forKey: Key("sizing")) }
        try container.encodeIfPresent(mark.color?.hex, forKey: Key("color"))
        try container.encodeIfPresent(mark.strokeColor?.hex, forKey: Key("stroke_color"))
        if mark.renderMode != .fill { try container.encode(mark.renderMode.rawValue, forKey: Key("render_mode")) }
        try container.encodeIfPresent(mark.font?.name, forKey: Key("font"))
    }
}

extension PDFOperation.Reader {
    func watermark() throws(OperationError) -> PDFOperation.Watermark {
        let text = try optional(String.self, "text")
        let image = try stampImage()
        guard (text == nil) != (image == nil) else {
            throw invalid("text", "a watermark is either text or an image (a base64 PNG or PDF in \"image\"), one of the two")
        }
        if let text,
            text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.unicodeScalars.count > 200
                || text.unicodeScalars.contains(where: CharacterSet.newlines.contains)
        {
            throw invalid("text", "needs 1 to 200 characters on one line")
        }
        var mark = PDFOperation.Watermark(text: text, image: image)
        mark.sizing = try one(PDFOperation.Watermark.Sizing.self, "sizing") ?? .fit
        mark.scale = try optional(Double.self, "scale") ?? 0.5
        // A share of the page is at most all of it; a mark's own size may grow.
        let most = mark.sizing == .absolute ? 100.0 : 1
        // Within the schema's 0 to 100 the bound depends on `sizing`: past it, a contradiction (422).
        guard mark.scale > 0, mark.scale <= most else {
            let refuse = mark.scale > 0 && mark.scale <= 100 ? contradicting : invalid
            throw refuse(
                "scale",
                "must be above 0 and at most \(Int(most)) (\(mark.sizing == .absolute ? "times the mark's own size" : "a share of the page"))"
            )
        }
        mark.opacity = try optional(Double.self, "opacity") ?? 0.25
        guard mark.opacity > 0, mark.opacity <= 1 else { throw invalid("opacity", "must be above 0 and at most 1") }
        mark.fontSize = try optional(Double.self, "font_size") ?? 72
        guard mark.fontSize >= 4, mark.fontSize <= 400 else { throw invalid("font_size", "must be 4 to 400 points") }
        let angle = try optional(Double.self, "angle")
        mark.diagonal = try one(PDFOperation.Watermark.Diagonal.self, "diagonal")
        if angle != nil, mark.diagonal != nil { throw contradicting("angle", "give angle or diagonal, not both") }
        mark.angle = angle ?? 45
        guard mark.angle.isFinite, abs(mark.angle) <= 360 else { throw invalid("angle", "must be -360 to 360 degrees") }
        if let text = try optional(String.self, "pages") { mark.pages = try pages(text, "pages") }
        mark.layer = try one(PDFOperation.Watermark.Layer.self, "layer") ?? .over
        mark.position = try one(PDFOperation.Watermark.Position.self, "position") ?? .center
        if let offset = try optional([Double].self, "offset") {
            guard offset.count == 2, offset.allSatisfy({ $0.isFinite && abs($0) <= 14_400 }) else {
                throw invalid("offset", "must be [right, up] in points, each -14400 to 14400")
            }
            (mark.offsetX, mark.offsetY) = (offset[0], offset[1])
        }
        mark.color = try color("color")
        mark.strokeColor = try color("stroke_color")
        mark.renderMode = try one(PDFOperation.Watermark.RenderMode.self, "render_mode") ?? .fill
        if let name = try optional(String.self, "font") {
            guard let font = PDFOperation.Watermark.Font(name: name) else {
                throw invalid("font", "'\(name)' is not one of \(PDFOperation.Watermark.Font.names.joined(separator: ", "))")
            }
            mark.font = font
        }
        if image != nil {
            for field in ["color", "stroke_color", "render_mode", "font", "font_size"] where container.contains(PDFOperation.Key(field)) {
                throw contradicting(field, "is for a text watermark; an image is drawn as it is")
            }
        }
        return mark
    }

    /// A watermark's image: a client's base64 PNG or PDF (checked here), or what a stored spec
    /// keeps of one (its hash, size and format).
    func stampImage() throws(OperationError) -> PDFOperation.StampImage? {
        if let text = try optional(String.self, "image") {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw invalid("image", "must be a PNG or PDF file in base64")
            }
            do {
                return try PDFOperation.StampImage.file(data, field: "image")
            } catch {
                throw invalid("image", String(error.message.dropFirst("image ".count)))
            }
        }
        guard let sha256 = try optional(String.self, "image_sha256") else { return nil }
        let format = try one(PDFOperation.StampImage.Format.self, "image_format") ?? .png
        return PDFOperation.StampImage(sha256: sha256, bytes: try optional(Int.self, "image_bytes") ?? 0, format: format)
    }

    /// A field whose value is one of `T`'s names, or nil when absent.
    func one<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ field: String) throws(OperationError) -> T? where T.RawValue == String {
        guard let text = try optional(String.self, field) else { return nil }
        guard let value = T(rawValue: text) else {
            throw invalid(field, "'\(text)' is not one of \(T.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))")
        }
        return value
    }

    func color(_ field: String) throws(OperationError) -> PDFOperation.Watermark.Color? {
        guard let text = try optional(String.self, field) else { return nil }
        guard let color = PDFOperation.Watermark.Color(hex: text) else {
            throw invalid(field, "'\(text)' is not a colour; write #RRGGBB, e.g. #CC0000")
        }
        return color
    }
}
