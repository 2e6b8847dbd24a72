import Foundation
import GatewayHTTPServing
import GatewaySettings

/// The text fields of a Gotenberg form, read as Gotenberg 8 reads them (`pkg/modules/api/formdata.go`):
/// Go's own parsers (`strconv.ParseBool` takes `1`, `t`, `TRUE`…), lengths with a unit, an empty
/// value as no value, and every bad one collected into one 400 whose text is Gotenberg's:
/// `Invalid form data: form field 'landscape' is invalid (got 'yes', resulting to …)`.
struct GotenbergFields {
    private let values: [String: String]
    private let repeated: [String: [String]]
    private(set) var problems: [String] = []
    /// The field each problem is about, where it is one (for Gotenberg's order).
    private var problemFields: [String?] = []
    /// A refusal Gotenberg words on its own, not as a form-data problem (its engine's errors,
    /// such as metadata with control characters): answered once the form itself is right, as
    /// Gotenberg's engine only sees a form that parsed.
    var refusal: GotenbergError?

    init(_ values: [String: String], repeated: [String: [String]] = [:]) {
        self.values = values
        self.repeated = repeated
    }

    init(_ form: MultipartForm) { self.init(form.fields, repeated: form.repeated) }

    /// Every value of a field the form may repeat (`watermarkSource`…), in order.
    func all(_ key: String) -> [String] { repeated[key] ?? values[key].map { [$0] } ?? [] }

    /// The value of `key`, nil when absent or empty (Gotenberg's default then stands).
    func string(_ key: String) -> String? {
        guard let value = values[key], !value.isEmpty else { return nil }
        return value
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let text = string(key) else { return nil }
        guard let value = GoText.parseBool(text) else {
            invalid(key, text, "strconv.ParseBool: parsing \(Self.quoted(text)): invalid syntax")
            return nil
        }
        return value
    }

    /// A whole number, `check` saying what is wrong with one out of range (Gotenberg's words).
    mutating func int(_ key: String, check: (Int) -> String? = { _ in nil }) -> Int? {
        guard let text = string(key) else { return nil }
        guard let value = Int(text) else {
            invalid(key, text, "strconv.Atoi: parsing \(Self.quoted(text)): invalid syntax")
            return nil
        }
        if let problem = check(value) {
            invalid(key, text, problem)
            return nil
        }
        return value
    }

    mutating func float(_ key: String) -> Double? {
        guard let text = string(key) else { return nil }
        guard let value = Double(text), value.isFinite else {
            invalid(key, text, "strconv.ParseFloat: parsing \(Self.quoted(text)): invalid syntax")
            return nil
        }
        return value
    }

    /// A length in inches: a bare number is inches; `pt`, `px`, `in`, `mm`, `cm` and `pc` convert.
    mutating func inches(_ key: String) -> Double? {
        guard let text = string(key) else { return nil }
        let units: [(String, Double)] = [("pt", 1 / 72), ("px", 1 / 96), ("in", 1), ("mm", 1 / 25.4), ("cm", 1 / 2.54), ("pc", 1 / 6)]
        let (number, factor) = units.first { text.hasSuffix($0.0) }.map { (String(text.dropLast($0.0.count)), $0.1) } ?? (text, 1)
        guard let value = Double(number), value.isFinite else {
            invalid(key, text, "strconv.ParseFloat: parsing \(Self.quoted(number)): invalid syntax")
            return nil
        }
        return value * factor
    }

    /// A Go duration (`500ms`, `1.5s`, `2m`) in seconds.
    mutating func seconds(_ key: String) -> Double? {
        guard let text = string(key) else { return nil }
        guard let seconds = GoText.seconds(text) else {
            invalid(key, text, "time: invalid duration \(Self.quoted(text))")
            return nil
        }
        return seconds
    }

    /// JSON text decoded as `T`.
    mutating func json<T: Decodable>(_ key: String, as type: T.Type) -> T? {
        guard let text = string(key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            invalid(key, text, "unmarshal \(key): \(error.localizedDescription)")
            return nil
        }
    }

    mutating func invalid(_ key: String, _ value: String, _ reason: String) {
        problems.append("form field '\(key)' is invalid (got '\(value)', resulting to \(reason))")
        problemFields.append(key)
    }

    mutating func append(_ problem: String) {
        problems.append(problem)
        problemFields.append(nil)
    }

    /// The order Gotenberg reads its Chromium fields in (`FormDataChromiumOptions`, then the
    /// PDF's and the screenshot's), so a form with many bad values lists them as it does.
    static let chromiumOrder = [
        "skipNetworkIdleEvent", "skipNetworkAlmostIdleEvent", "failOnHttpStatusCodes", "failOnResourceHttpStatusCodes",
        "ignoreResourceHttpStatusDomains", "failOnResourceLoadingFailed", "failOnConsoleExceptions", "waitDelay", "waitWindowStatus",
        "waitForExpression", "waitForSelector", "cookies", "userAgent", "extraHttpHeaders", "emulatedMediaType", "emulatedMediaFeatures",
        "omitBackground", "landscape", "printBackground", "scale", "singlePage", "paperWidth", "paperHeight", "marginTop", "marginBottom",
        "marginLeft", "marginRight", "nativePageRanges", "preferCssPageSize", "generateDocumentOutline", "generateTaggedPdf", "width",
        "height", "clip", "selector", "format", "quality", "optimizeForSpeed", "deviceScaleFactor",
    ]

    /// The problems in Gotenberg's order: its Chromium fields first, as it reads them, then the
    /// rest as they came.
    var orderedProblems: [String] {
        let rank = Dictionary(uniqueKeysWithValues: Self.chromiumOrder.enumerated().map { ($1, $0) })
        return zip(problems, problemFields).enumerated()
            .sorted { a, b in
                (a.element.1.flatMap { rank[$0] } ?? 1000 + a.offset) < (b.element.1.flatMap { rank[$0] } ?? 1000 + b.offset)
            }
            .map(\.element.0)
    }

    /// Gotenberg's 400 for everything collected, or nothing.
    func validate() throws(GotenbergError) {
        if !problems.isEmpty { throw GotenbergError(.badRequest, "Invalid form data: " + orderedProblems.joined(separator: "\n")) }
        if let refusal { throw refusal }
    }

    /// How Go's `%q` quotes a simple string.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
