import Foundation
import GatewayJobModel
import GatewaySandbox
import Synchronization

/// The languages Tesseract can read on this node (`tesseract --list-langs`: one per installed
/// `tesseract-ocr-XXX` package), asked when first needed and again after `freshFor`, so a pack
/// the operator installs shows up without a restart while the intake, the jobs and `/readyz`
/// do not start a process each time they ask.
final class TesseractLanguages: Sendable {
    /// What the last question found.
    enum Answer: Sendable, Equatable {
        case installed(Set<String>)
        /// Tesseract is missing or does not answer: why, with what to install.
        case unavailable(String)
    }

    let tesseractPath: String
    let freshFor: Duration
    private let cached = Mutex<(answer: Answer, at: ContinuousClock.Instant)?>(nil)

    init(tesseractPath: String, freshFor: Duration = .seconds(300)) {
        self.tesseractPath = tesseractPath
        self.freshFor = freshFor
    }

    /// The installed languages (`osd`, the orientation model, among them), or why there are none.
    func answer() async -> Answer {
        if let cached = cached.withLock({ $0 }), ContinuousClock.now - cached.at < freshFor { return cached.answer }
        let answer = await ask()
        // A failure is not kept: the next question tries again.
        if case .installed = answer { cached.withLock { $0 = (answer, .now) } }
        return answer
    }

    /// The installed languages, or nil when Tesseract does not answer.
    func installed() async -> Set<String>? {
        if case .installed(let languages) = await answer() { return languages }
        return nil
    }

    static let install = "install Debian's tesseract-ocr and a language pack such as tesseract-ocr-eng"

    private func ask() async -> Answer {
        guard FileManager.default.isExecutableFile(atPath: tesseractPath) else {
            return .unavailable("\(tesseractPath) is not installed; \(Self.install)")
        }
        // Nothing of a document is read: a plain child, as `ToolCheck`'s probes are.
        switch await ToolOutput.run(tesseractPath, ["--list-langs"]) {
        case .success(let text):
            let languages = Self.parse(text)
            return languages.subtracting(["osd"]).isEmpty
                ? .unavailable("Tesseract has no language data; \(Self.install)") : .installed(languages)
        case .failure(let failure):
            return .unavailable("tesseract --list-langs \(failure.reason); \(Self.install)")
        }
    }

    /// The codes `--list-langs` prints, one a line after its heading.
    static func parse(_ text: String) -> Set<String> {
        Set(
            text.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                PDFOperation.OCR.languagesProblem([$0], field: "") == nil
            }
        )
    }
}
