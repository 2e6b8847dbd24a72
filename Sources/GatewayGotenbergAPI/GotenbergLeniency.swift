import Foundation
import GatewayJobModel
import HTTPTypes
import Synchronization

extension HTTPField.Name {
    static let pdfgateWarning = Self("Pdfgate-Warning")!
}

/// What a Gotenberg route let pass that `/v1` refuses by name — Gotenberg is lenient there, and
/// a client moving from it must keep working — said back in `Pdfgate-Warning` headers, one a
/// thing ignored, so nothing is dropped in silence.
final class GotenbergWarnings: Sendable {
    /// The request being answered's (`GotenbergController.receiving` sets it).
    @TaskLocal static var current: GotenbergWarnings?

    private let notes = Mutex<[String]>([])

    /// Notes `warning` for the current request's answer.
    static func note(_ warning: String) {
        current?.notes.withLock { $0.append(warning) }
    }

    /// What was noted, then what the outputs show was left out (`pagesPastTheEnd`), then what
    /// the converters said of their results (a substituted font).
    func all(after outputs: [GotenbergJobs.Output]) -> [String] {
        notes.withLock { $0 } + outputs.flatMap(Self.pagesPastTheEnd) + outputs.flatMap(\.job.state.warnings)
    }

    /// Pages a job asked for past the end of its document, which its lenient run left out
    /// (`JobSpec.gotenbergSemantics`): LibreOffice's `nativePageRanges`, a split's `splitSpan`. The pages
    /// left out are the highest asked for, so they are told by counting what came out; a range
    /// open at its end (`3-`) cannot run past it, and then nothing is said.
    static func pagesPastTheEnd(_ output: GotenbergJobs.Output) -> [String] {
        let spec = output.job.spec
        let name = spec.originalFilename ?? spec.url ?? "the document"
        let split = spec.operations?.compactMap { operation -> PDFOperation.Split? in
            if case .split(let split) = operation { return split } else { return nil }
        }.first
        switch split {
        case .pages(let selection):
            return leftOut(selection, field: "splitSpan", got: output.documents.count, of: name)
        case .ranges(let selections) where selections.count == 1 && spec.options.browser.pageRanges == nil:
            return leftOut(selections[0], field: "splitSpan", got: output.documents.first?.document.info.pageCount, of: name)
        case nil where spec.type == .docToPDF:
            guard let text = spec.options.browser.pageRanges, let selection = try? PageSelection(text) else { return [] }
            return leftOut(selection, field: "nativePageRanges", got: output.documents.first?.document.info.pageCount, of: name)
        default:
            return []
        }
    }

    private static func leftOut(_ selection: PageSelection, field: String, got: Int?, of name: String) -> [String] {
        guard let got, selection.runs.allSatisfy({ $0.last != nil }) else { return [] }
        let asked = Set(selection.runs.flatMap { $0.first...($0.last ?? $0.first) }).sorted()
        guard asked.count > got else { return [] }
        let pages = runs(Array(asked[got...]))
        return ["\(field) '\(selection)': \(pages) past the end of \(name), left out as Gotenberg does"]
    }

    /// `[2, 3, 4, 7]` as "pages 2-4, 7".
    private static func runs(_ pages: [Int]) -> String {
        var parts: [String] = []
        var start = pages[0]
        var previous = pages[0]
        for page in pages.dropFirst() + [Int.max] {
            if page == previous + 1 {
                previous = page
                continue
            }
            parts.append(start == previous ? "\(start)" : "\(start)-\(previous)")
            (start, previous) = (page, page)
        }
        return (pages.count == 1 ? "page " : "pages ") + parts.joined(separator: ", ")
    }
}
