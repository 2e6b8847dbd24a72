import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox

/// The `ocr` operation: Tesseract's own PDF renderer in text-only mode, page images made by
/// Poppler, the text laid under the pages by qpdf — every run sealed and bounded like the other
/// PDF tools (`PDFToolRunner`). No OCRmyPDF on this path: it rasterizes every page again and its
/// default output re-encodes the images, several times slower (docs/scan-ocr-search-notes.md §3).
public struct OCREngine: Sendable {
    /// Time Tesseract may take per page before its batch is stopped, however long the job may
    /// still run: a page that takes longer is hostile or broken. The caller's to set.
    public var pageBudget: Duration
    /// Tesseract runs at once in this process, shared by every job.
    let lanes: SlotPool<Int>
    let languages: TesseractLanguages

    /// `lanes`: how many Tesseract processes may run at once; nil shares the machine-wide pool of
    /// one per core with every other engine made that way.
    public init(pageBudget: Duration = .seconds(20), tesseractPath: String = OCREngine.defaultTesseract, lanes: Int? = nil) {
        self.pageBudget = pageBudget
        self.lanes = lanes.map { SlotPool(Array(0..<max($0, 1))) } ?? Self.machineLanes
        languages = tesseractPath == Self.defaultTesseract ? Self.defaultLanguages : TesseractLanguages(tesseractPath: tesseractPath)
    }

    public static let defaultTesseract = ToolPath.locate("tesseract", preferring: "/usr/bin/tesseract")

    /// One Tesseract per core for the whole process, so concurrent jobs never run more: each is
    /// single-threaded (`OMP_THREAD_LIMIT=1`), and more than the cores only adds switching.
    package static let machineLanes = SlotPool(Array(0..<max(ProcessInfo.processInfo.activeProcessorCount, 1)))
    static let defaultLanguages = TesseractLanguages(tesseractPath: defaultTesseract)

    /// The languages installed here, or nil when Tesseract does not answer.
    public func installedLanguages() async -> Set<String>? { await languages.installed() }

    /// Why OCR cannot run here (Tesseract or its language data missing), or nil; with the
    /// installed languages, for `/readyz`.
    public func problem() async -> (problem: String?, languages: [String]) {
        switch await languages.answer() {
        case .installed(let installed): (nil, installed.sorted())
        case .unavailable(let why): (why, [])
        }
    }

    /// Adds the text layer to the step's input, writing the step's output and the recognised
    /// text beside it (`OCRPageText`); answers the file that is the result (the input itself
    /// when every page has text already).
    func run(_ settings: PDFOperation.OCR, step: Step, what: String) async throws -> String {
        try await checkLanguages(settings.languages)
        let pages = try await PageSurvey(step: step).pages(what: what).filter { settings.force || !$0.hasText }
        guard !pages.isEmpty else { return step.input }
        guard pages.count <= PDFOperation.OCR.maxPages else {
            throw JobFailure(
                .rejected,
                code: "too_many_pages",
                "\(what) has \(pages.count) pages to OCR; one job OCRs at most \(PDFOperation.OCR.maxPages): split it first and OCR the parts"
            )
        }
        let plan = OCRLanePlan(
            pages: pages,
            cores: lanes.slots.count,
            maxBatch: OCRLanePlan.maxBatch(cpuSeconds: step.runner.sandbox.limits.cpuSeconds, pageBudget: pageBudget)
        )
        let outputs = try await read(plan, settings: settings, step: step, what: what)
        try await TextLayerUnderlay(step: step).write(outputs.map(\.textPDF), under: pages.map(\.number), what: what)
        let texts = zip(pages, outputs.flatMap(\.texts)).map { OCRPageText.Page(page: $0.number, text: $1) }
        do {
            try OCRPageText(languages: settings.languages, pages: texts).write(beside: step.output)
        } catch {
            throw JobFailure(.transient, code: "storage_error", "could not keep the OCR text of \(what): \(error)")
        }
        return step.output
    }

    /// The batches read in lanes, at most `plan.lanes` at once for this job and `lanes` in all.
    private func read(_ plan: OCRLanePlan, settings: PDFOperation.OCR, step: Step, what: String) async throws -> [TesseractBatch.Output] {
        try await withThrowingTaskGroup(of: (Int, TesseractBatch.Output).self) { group in
            var results: [Int: TesseractBatch.Output] = [:]
            var next = 0
            func start() {
                guard next < plan.batches.count else { return }
                let index = next
                next += 1
                let batch = TesseractBatch(
                    step: step,
                    batch: plan.batches[index],
                    stem: "\(step.prefix)-b\(index + 1)",
                    languages: settings.tesseractLanguages
                )
                group.addTask { (index, try await self.read(batch, what: what, jobDeadline: step.deadline)) }
            }
            for _ in 0..<plan.lanes { start() }
            while let finished = try await group.next() {
                results[finished.0] = finished.1
                start()
            }
            return (0..<plan.batches.count).map { results[$0]! }
        }
    }

    /// One batch in a lane of the machine's, within the job's deadline and the batch's budget.
    private func read(_ batch: TesseractBatch, what: String, jobDeadline: ContinuousClock.Instant) async throws -> TesseractBatch.Output {
        try await LocalFailures.withSlot(lanes, tool: "OCR", what: what, deadline: jobDeadline) { _ in
            let pages = batch.batch.pages
            // A few seconds beside the pages' budget for Tesseract to load its languages and Poppler to draw.
            let budget = pageBudget * pages.count + .seconds(5)
            let deadline = min(jobDeadline, .now + budget)
            do {
                return try await batch.run(deadline: deadline, what: what)
            } catch let failure as JobFailure where failure.kind == .timedOut && deadline < jobDeadline {
                let range = pages.count == 1 ? "page \(pages[0].number)" : "pages \(pages[0].number)–\(pages[pages.count - 1].number)"
                throw JobFailure(
                    .rejected,
                    code: "ocr_page_too_slow",
                    "OCR of \(range) of \(what) took longer than its budget of \(pageBudget.components.seconds) s a page and was stopped; the pages are too large or too busy to read"
                )
            }
        }
    }

    /// Tesseract and every language asked for are installed here.
    private func checkLanguages(_ wanted: [String]) async throws {
        switch await languages.answer() {
        case .unavailable(let why):
            throw JobFailure(.rejected, code: "ocr_unavailable", "OCR cannot run on this gateway: \(why)")
        case .installed(let installed):
            if let problem = PDFOperation.OCR.unavailable(wanted, installed: installed) {
                throw JobFailure(.rejected, code: "ocr_language_unavailable", problem)
            }
        }
    }
}
