import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayJobModel
import GatewayLibraryModel
import GatewayStore

/// `pdfgate scan IMAGE...`: photos or scans of pages, in order, as one PDF in the library.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Make one PDF of page images (JPEG, PNG, TIFF, WebP, HEIC), in order, and file it.",
        discussion: """
            Each image becomes a page (a TIFF, one page per frame). A JPEG is embedded as it is, not re-encoded; \
            EXIF orientation turns its page. A page is sized by its image's DPI, or fitted into A4 when the image says none.
            """
    )

    @Argument(help: "Page images, in page order.")
    var images: [String]

    @Flag(help: "Straighten pages photographed at a slant (re-draws those pages, losslessly).")
    var deskew = false

    @Flag(help: "Turn sideways or upside-down pages upright, as Tesseract reads their text.")
    var autoRotate = false

    @Flag(help: "Add an invisible text layer (Tesseract), so the PDF can be searched.")
    var ocr = false

    @Option(help: "Languages of the text for --ocr, as Tesseract names them, joined by '+' (e.g. eng+deu).")
    var lang: String?

    @Option(help: "Fit every image into this paper, in inches: WIDTHxHEIGHT (A4: 8.27x11.69). Default: each image's own DPI.")
    var paper: String?

    @Option(help: "Folder path or id to file into (created if missing). Default: the root.")
    var folder: String?

    @Option(help: "Document name. Default: the first image's file name.")
    var name: String?

    @Option(help: "When the name is taken: fail, or rename to 'Name 01', ….")
    var onConflict: ConflictPolicy = .rename

    @Option(help: "Seconds the job may take, retries included (default 120).")
    var timeout: Double?

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if lang != nil && !ocr { throw ValidationError("--lang says which languages --ocr reads; add --ocr") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive") }
        _ = try paperSize()
    }

    func run() async throws {
        try await reporting(json: output.json) {
            let failed = try await withEmbeddedEngine(library, what: "scan", converter: "local", timeout: timeout, allowHosts: []) { assembly in
                let progress = JobProgress(engine: assembly.engine)
                let source = images.count == 1 ? images[0] : "scan of \(images.count) images"
                let id = try await submit(to: assembly.intake, owner: library.resolvedOwner)
                progress.track(id, source: source)
                let finished = try await watch([(source, id)], engine: assembly.engine, progress: progress)
                return try await reportJobs(finished, library: assembly.library, json: output.json)
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }

    private func submit(to intake: JobIntake, owner: String) async throws -> UUID {
        var options = ConversionOptions()
        if let (width, height) = try paperSize() {
            options.paperWidth = width
            options.paperHeight = height
        }
        options.scan = ScanOptions(
            deskew: deskew ? true : nil,
            autoRotate: autoRotate ? true : nil,
            ocr: ocr ? true : nil,
            ocrLanguages: lang.map { $0.split(separator: "+").map(String.init) }
        )
        var inputs: [JobInput] = []
        var files: [JobIntake.Input] = []
        for image in images {
            let path = URL(fileURLWithPath: image).standardizedFileURL.path
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw LibraryError(.invalidArgument, "cannot read '\(image)'; give the page images as readable files")
            }
            inputs.append(.file((path as NSString).lastPathComponent))
            files.append(.copying(path))
        }
        let spec = JobSpec(
            type: .scanToPDF,
            folder: folder,
            name: name,
            onConflict: onConflict,
            options: options,
            timeoutSeconds: timeout,
            inputs: inputs
        )
        return try await intake.create(spec, owner: owner, inputs: files).job.id
    }

    /// `--paper 8.27x11.69` in inches, or nil for each image's own size.
    private func paperSize() throws -> (Double, Double)? {
        guard let paper else { return nil }
        let parts = paper.lowercased().split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw ValidationError("--paper is WIDTHxHEIGHT in inches, e.g. 8.27x11.69 for A4, not '\(paper)'")
        }
        return (parts[0], parts[1])
    }
}
