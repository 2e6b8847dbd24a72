import Foundation
import GatewayJobModel

/// The inputs of a job with several (`JobSpec.inputs`), each converted in turn, inside the job's
/// attempt, by the backend its own type is routed to — Chromium for a page, LibreOffice for a
/// `.docx`, Calibre for an ebook, a PDF as it is — into the PDFs the job's converter
/// (`PDFCombiner`) then merges in order.
///
/// They run one after the other within the job's one deadline and slot: a job's inputs never
/// take more than one backend slot at a time. A retry converts them all again. Conversions on a
/// remote backend are not resumed by id (a job stores one remote id): a retry starts them anew.
struct InputConversions: Sendable {
    let router: ConverterRouter
    let staging: any InputStaging

    /// The converted inputs, in order. A failure names the input: "inputs[1] ('b.docx'): …".
    func convert(
        _ job: Job,
        inputs: [JobInput],
        like request: ConversionRequest,
        events: @escaping @Sendable (ConversionEvent) async -> Void
    ) async throws -> [PDFInput] {
        var converted: [PDFInput] = []
        for (index, input) in inputs.enumerated() {
            try Task.checkCancellation()
            do {
                converted.append(try await convert(input, part: index, of: job, like: request, events: events))
            } catch let error where !(error is CancellationError) {
                var failure = AttemptPipeline.classify(error)
                failure.message = "inputs[\(index)] (\(input.label)): \(failure.message)"
                throw failure
            }
        }
        return converted
    }

    private func convert(
        _ input: JobInput,
        part: Int,
        of job: Job,
        like request: ConversionRequest,
        events: @escaping @Sendable (ConversionEvent) async -> Void
    ) async throws -> PDFInput {
        let source: ConversionSource
        switch input {
        case .url(let url):
            source = .url(url)
        case .file(let name) where input.type == .pdfToPDF:
            // Already a PDF: the merge decrypts and repairs it like any uploaded PDF.
            return PDFInput(path: staging.inputPath(for: job, part: part), password: request.secrets.password(for: nil), label: "'\(name)'")
        case .file(let name):
            source = .file(path: staging.inputPath(for: job, part: part), originalFilename: name)
        }
        guard let route = router.route(for: input.type) else {
            throw JobFailure.converterUnavailable("no converter is configured for \(input.type.rawValue) any more")
        }
        let work = request.workDirectory + "/input-\(part + 1)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let output = work + "/output.pdf"
        var single = request
        single.type = input.type
        single.source = source
        single.workDirectory = work
        single.outputPath = output
        single.remoteID = nil
        try await route.converter.convert(single) { event in
            if case .entered(let phase) = event { await events(.entered(phase)) }
        }
        // Made here and now, unencrypted: the merge takes it as it is.
        return PDFInput(path: output, password: nil, label: input.label, isReadable: true)
    }
}
