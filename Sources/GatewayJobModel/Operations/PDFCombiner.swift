import Foundation

/// The converter of `PDF_TO_PDF` jobs: their input already is PDF, so "converting" is bringing
/// it into one unencrypted file — library documents merged in order, or the uploaded PDF
/// decrypted and repaired — which the job's operations then work on.
public struct PDFCombiner: Converter {
    public let name = "local.pdf"
    let tools: any PDFOperator

    public init(tools: any PDFOperator) {
        self.tools = tools
    }

    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        let inputs: [PDFInput]
        switch request.source {
        case .pdfs(let documents):
            inputs = documents
        case .file(let path, let originalFilename):
            inputs = [PDFInput(path: path, password: request.secrets.password(for: nil), label: originalFilename)]
        case .url, .images:
            throw JobFailure(
                .rejected,
                code: "unsupported_source",
                "a PDF_TO_PDF job takes library documents or an uploaded PDF, not a URL or page images"
            )
        }
        await events(.entered(.converting))
        try await tools.combine(inputs, into: request.outputPath, work: request.workDirectory + "/combine", deadline: request.deadline)
    }

    public func isReady() async -> Bool { await tools.problem() == nil }
}
