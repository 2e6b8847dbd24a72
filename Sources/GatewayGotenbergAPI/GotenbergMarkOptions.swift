import Foundation
import GatewayJobModel

/// Gotenberg's `watermarkOptions`/`stampOptions`: the keys of pdfcpu's description
/// (`{"position":"br","offset":"-20 20","fillcolor":"#CC0000"}`), which Gotenberg hands to pdfcpu
/// as they are. Read as pdfcpu reads them: a key is any unambiguous prefix of a parameter's name,
/// in any case (`pos`, `off`, `fillc`, `sc` is ambiguous), each value in pdfcpu's syntax, its
/// defaults where a key is absent (`PDFOperation.Watermark.pdfcpu`).
enum GotenbergMarkOptions {
    typealias Mark = PDFOperation.Watermark

    /// pdfcpu's parameters, by full name; a nil reader is one we cannot draw, refused by name.
    static let parameters: [String: (@Sendable (String, inout Mark) -> String?)?] = [
        "aligntext": alignText,
        "backgroundcolor": nil,
        "bgcolor": nil,
        "border": nil,
        "color": { value, mark in fillColor(value, &mark) },
        "diagonal": diagonal,
        "fillcolor": { value, mark in fillColor(value, &mark) },
        "fontname": fontName,
        "margins": nil,
        "maxwidth": nil,
        "mode": renderMode,
        "offset": offset,
        "opacity": opacity,
        "points": points,
        "position": position,
        "rendermode": renderMode,
        "rotation": rotation,
        "rtl": nil,
        "scalefactor": scaleFactor,
        "scriptname": nil,
        "strokecolor": strokeColor,
        "url": nil,
    ]

    /// The parameters we draw, for the refusals' messages.
    static var taken: String { parameters.filter { $0.value != nil }.keys.sorted().joined(separator: ", ") }

    /// Applies every option to `mark`, or says why one cannot be (a Gotenberg 400).
    static func apply(_ options: [String: String], to mark: inout Mark, field: String) throws(GotenbergError) {
        func refuse(_ problem: String) -> GotenbergError { GotenbergError(.badRequest, "Invalid form data: form field '\(field)' \(problem)") }
        // pdfcpu forbids `rotation` with `diagonal`; which came first does not matter to it.
        var turned = false
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            let name = try parameter(key, field: field)
            guard let read = parameters[name] ?? nil else {
                throw refuse("has '\(key)' (pdfcpu's \(name)), which pdfgate does not draw; it takes \(taken)")
            }
            if name == "rotation" || name == "diagonal" {
                if turned { throw refuse("has both rotation and diagonal; give one") }
                turned = true
            }
            if let problem = read(value.trimmingCharacters(in: .whitespaces), &mark) {
                throw refuse("has '\(key)': '\(value)', \(problem)")
            }
        }
    }

    /// The full name of pdfcpu's parameter that `key` starts, as pdfcpu resolves it.
    static func parameter(_ key: String, field: String) throws(GotenbergError) -> String {
        let prefix = key.trimmingCharacters(in: .whitespaces).lowercased()
        let matches = parameters.keys.filter { $0.hasPrefix(prefix) }.sorted()
        guard !prefix.isEmpty, let first = matches.first else {
            throw GotenbergError(
                .badRequest,
                "Invalid form data: form field '\(field)' has '\(key)', which is not one of pdfcpu's keys; pdfgate takes \(taken)"
            )
        }
        guard matches.count == 1 else {
            throw GotenbergError(
                .badRequest,
                "Invalid form data: form field '\(field)' has '\(key)', which could be any of \(matches.joined(separator: ", ")); write more of the name"
            )
        }
        return first
    }

    // MARK: - Each parameter, as pdfcpu parses it; the answer is what is wrong, or nil

    static func alignText(_ value: String, _ mark: inout Mark) -> String? {
        // It lines up the lines of several; one line, as ours always is, looks the same.
        ["l", "left", "r", "right", "c", "center", "j", "justify"].contains(value) ? nil : "which is not l, r, c or j"
    }

    static func fillColor(_ value: String, _ mark: inout Mark) -> String? {
        guard let color = color(value) else { return colorProblem }
        mark.color = color
        return nil
    }

    static func strokeColor(_ value: String, _ mark: inout Mark) -> String? {
        guard let color = color(value) else { return colorProblem }
        mark.strokeColor = color
        return nil
    }

    static let colorProblem =
        "which is not a colour: write #RRGGBB, three intensities 0…1 ('1 0 0'), or black, darkgray, gray, lightgray, white, red, green, blue"

    /// pdfcpu's colours: `#RRGGBB`, `r g b` intensities, or one of its eight names.
    static func color(_ text: String) -> Mark.Color? {
        let parts = text.split(separator: " ")
        if parts.count == 3 {
            let values = parts.compactMap { Double($0) }
            guard values.count == 3, values.allSatisfy({ (0...1).contains($0) }) else { return nil }
            return Mark.Color(red: values[0], green: values[1], blue: values[2])
        }
        if let hex = Mark.Color(hex: text) { return hex }
        let named: [String: (Double, Double, Double)] = [
            "black": (0, 0, 0), "darkgray": (0.3, 0.3, 0.3), "gray": (0.5, 0.5, 0.5), "lightgray": (0.9, 0.9, 0.9),
            "white": (1, 1, 1), "red": (1, 0, 0), "green": (0, 1, 0), "blue": (0, 0, 1),
        ]
        return named[text.lowercased()].map { Mark.Color(red: $0.0, green: $0.1, blue: $0.2) }
    }

    static func diagonal(_ value: String, _ mark: inout Mark) -> String? {
        switch value {
        case "1": mark.diagonal = .up
        case "2": mark.diagonal = .down
        default: return "which is not 1 (lower left to upper right) or 2 (upper left to lower right)"
        }
        return nil
    }

    static func fontName(_ value: String, _ mark: inout Mark) -> String? {
        // pdfcpu's other fonts are ones installed into its own configuration; we draw the 12
        // standard text fonts, with fontconfig's metric-compatible faces.
        guard let font = Mark.Font(name: value) else { return "which is not one of \(Mark.Font.names.joined(separator: ", "))" }
        mark.font = font
        return nil
    }

    static func renderMode(_ value: String, _ mark: inout Mark) -> String? {
        let modes: [String: Mark.RenderMode] = ["0": .fill, "1": .stroke, "2": .fillStroke]
        guard let mode = modes[value] else { return "which is not 0 (fill), 1 (stroke) or 2 (fill and stroke)" }
        mark.renderMode = mode
        return nil
    }

    static func offset(_ value: String, _ mark: inout Mark) -> String? {
        // pdfcpu: exactly two numbers, split on one space; points, as Gotenberg names no unit.
        let parts = value.split(separator: " ", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 2, let dx = parts[0], let dy = parts[1], dx.isFinite, dy.isFinite, abs(dx) <= 14_400, abs(dy) <= 14_400 else {
            return "which is not two numbers of points, right and up, such as '-20 20'"
        }
        (mark.offsetX, mark.offsetY) = (dx, dy)
        return nil
    }

    static func opacity(_ value: String, _ mark: inout Mark) -> String? {
        // pdfcpu takes 0 too, a mark nobody sees: refused rather than drawn for nothing.
        guard let number = Double(value), number > 0, number <= 1 else { return "which is not a number above 0 and at most 1" }
        mark.opacity = number
        return nil
    }

    static func points(_ value: String, _ mark: inout Mark) -> String? {
        // pdfcpu wants a whole number; a client's JSON number arrives here as `48.0`.
        guard let number = Double(value), number == number.rounded(), number >= 4, number <= 400 else {
            return "which is not a whole number of points from 4 to 400"
        }
        mark.fontSize = number
        return nil
    }

    static func position(_ value: String, _ mark: inout Mark) -> String? {
        let anchors: [Mark.Position: [String]] = [
            .topLeft: ["tl", "topleft", "top-left"], .top: ["tc", "topcenter", "top-center"], .topRight: ["tr", "topright", "top-right"],
            .left: ["l", "left"], .center: ["c", "center", "f", "full"], .right: ["r", "right"],
            .bottomLeft: ["bl", "bottomleft", "bottom-left"], .bottom: ["bc", "bottomcenter", "bottom-center"],
            .bottomRight: ["br", "bottomright", "bottom-right"],
        ]
        // pdfcpu matches these exactly, in lower case; `full` is the centre for a watermark.
        guard let anchor = anchors.first(where: { $0.value.contains(value) })?.key else {
            return "which is not a position: tl, tc, tr, l, c, r, bl, bc, br (or top-left, center, bottom-right…)"
        }
        mark.position = anchor
        return nil
    }

    static func rotation(_ value: String, _ mark: inout Mark) -> String? {
        guard let degrees = Double(value), (-180...180).contains(degrees) else { return "which is not a number of degrees from -180 to 180" }
        mark.angle = degrees
        mark.diagonal = nil
        return nil
    }

    static func scaleFactor(_ value: String, _ mark: inout Mark) -> String? {
        // pdfcpu: `0.5` (a share of the page up to 1, the mark's own size above), `0.5 rel`,
        // `2 abs`; a share of the page is at most all of it.
        let parts = value.split(separator: " ").map(String.init)
        guard (1...2).contains(parts.count), let factor = Double(parts[0]), factor > 0, factor.isFinite else {
            return "which is not a factor above 0, optionally followed by abs or rel"
        }
        var absolute = factor > 1
        if parts.count == 2 {
            switch parts[1] {
            case "a", "abs", "absolute": absolute = true
            case "r", "rel", "relative": absolute = false
            default: return "whose mode is not abs or rel"
            }
        }
        if !absolute, factor > 1 { return "a relative factor above 1; write at most 1, or add abs" }
        if absolute, factor > 100 { return "an absolute factor above 100" }
        mark.scale = factor
        mark.sizing = absolute ? .absolute : .relative
        return nil
    }
}
