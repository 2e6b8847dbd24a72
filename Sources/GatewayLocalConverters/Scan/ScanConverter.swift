import Foundation
import GatewayJobModel
import GatewayPDFTools
import GatewaySandbox

/// SCAN_TO_PDF on this machine: page images, in order, become one PDF, one page each (a TIFF
/// one page per frame), laid out by img2pdf (`ScanScript`).
///
/// A JPEG is embedded byte for byte; its EXIF orientation turns the page. Only what cannot be
/// said with a page's `/Rotate` changes pixels, each time losslessly to PNG: a HEIC (decoded by
/// `heif-convert`, since PDF cannot hold HEVC), a mirrored photo (turned over by ImageMagick), a
/// page asked to be deskewed. Every image's header is read first (`ImageHeader`): a file that
/// is no image, or one that claims a bomb's dimensions, fails the job before any tool opens it.
/// Every tool runs sealed and bounded (`PDFToolRunner`), seeing only the scan's directory.
struct ScanConverter: Converter {
    let name = "local.scan"
    let runner: PDFToolRunner
    /// The paper an image without a usable DPI is fitted into: A4, in points.
    var fallbackPaper = (width: 595.28, height: 841.89)

    /// More pages than this is no scan: split it into several jobs.
    static let maxPages = 500

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        let images: [StagedFile]
        switch request.source {
        case .file(let path, let originalFilename): images = [StagedFile(path: path, originalFilename: originalFilename)]
        case .images(let staged): images = staged
        case .url, .pdfs:
            throw JobFailure(.rejected, code: "unsupported_source", "a SCAN_TO_PDF job takes uploaded page images, not a URL or PDFs")
        }
        await events(.entered(.converting))
        let work = request.workDirectory + "/scan"
        try ToolFiles.makeDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // Every header first: a bad tenth image fails the job before nine were worked on.
        let labelled = images.enumerated().map { index, image in
            (image, images.count == 1 ? "'\(image.originalFilename)'" : "inputs[\(index)] ('\(image.originalFilename)')")
        }
        var headers: [ImageHeader] = []
        for (image, label) in labelled { headers.append(try ImageHeader.read(path: image.path, label: label)) }
        let pageCount = headers.reduce(0) { $0 + $1.frames }
        guard pageCount <= Self.maxPages else {
            throw JobFailure(
                .rejected,
                code: "too_many_pages",
                "the images make \(pageCount) pages; a scan takes at most \(Self.maxPages): split it into several jobs"
            )
        }

        var pages: [String] = []
        var turn: [(page: Int, degrees: Int)] = []
        var page = 1
        for (index, ((image, label), header)) in zip(labelled, headers).enumerated() {
            let name = String(format: "page-%03d", index + 1)
            let staged = name + "." + header.format.rawValue
            try ToolFiles.linkOrCopy(image.path, to: work + "/" + staged)
            let prepared = try await prepare(
                staged,
                header,
                named: name,
                options: request.options.scan,
                in: work,
                label: label,
                deadline: request.deadline
            )
            if request.options.scan.autoRotate == true, header.frames == 1,
                let degrees = try await uprightRotation(of: prepared, in: work, label: label, deadline: request.deadline)
            {
                turn.append((page, degrees))
            }
            pages.append(prepared)
            page += header.frames
        }

        let output = "scan.pdf"
        let finished = try await layOut(pages, output: output, paper: request.options, in: work, deadline: request.deadline)
        guard finished.status == 0 else { throw Self.layoutFailure(finished.log) }
        try OutputCheck.verify(work + "/" + output, tool: "img2pdf", diagnostics: finished.log)
        var result = output
        if !turn.isEmpty {
            // Without a sign qpdf sets the angle: what Tesseract read replaces the EXIF turn.
            let rotations = turn.map { "--rotate=\($0.degrees):\($0.page)" }
            try await runner.qpdf([output] + rotations + ["--", "turned.pdf"], in: work, what: "the scan", deadline: request.deadline)
            result = "turned.pdf"
        }
        try OutputCheck.deliver(work + "/" + result, to: request.outputPath)
    }

    func isReady() async -> Bool {
        FileManager.default.isExecutableFile(atPath: runner.pythonPath)
    }

    /// The file img2pdf embeds for one image: the upload itself unless its pixels must change.
    private func prepare(
        _ staged: String,
        _ header: ImageHeader,
        named name: String,
        options: ScanOptions,
        in work: String,
        label: String,
        deadline: ContinuousClock.Instant
    ) async throws -> String {
        var current = staged
        if header.format == .heic {
            try requireTool(runner.heifConvertPath, package: "libheif-examples", for: "a HEIC image")
            let decoded = name + "-decoded.png"
            let finished = try await runner.run(.heifConvert, [current, decoded], in: work, what: label, deadline: deadline)
            guard finished.status == 0, FileManager.default.fileExists(atPath: work + "/" + decoded) else {
                throw JobFailure(.rejected, code: "not_an_image", "\(label) could not be decoded as HEIC: \(OutputCheck.lastLines(finished.log))")
            }
            current = decoded
        }
        // A PDF page turns but does not flip; deskewing re-draws the page anyway. `-auto-orient`
        // first, so the pixels come out upright and no orientation is left to apply twice. 16 bits
        // a sample (some scanners, ImageMagick's default) is more than img2pdf keeps: 8 it is.
        let deskew = options.deskew == true
        if header.bitsPerSample > 8 && !deskew && !header.isMirrored {
            try requireTool(runner.convertPath, package: "imagemagick", for: "an image of \(header.bitsPerSample) bits a sample")
            // In its own format: a TIFF keeps its frames.
            let redrawn = name + "-8bit." + (current as NSString).pathExtension
            try await redraw([current, "-depth", "8", redrawn], in: work, label: label, deadline: deadline)
            current = redrawn
        }
        if deskew || header.isMirrored {
            try requireTool(runner.convertPath, package: "imagemagick", for: deskew ? "deskew" : "a mirrored photo")
            // Lossless; a TIFF stays one, frames and all (a PNG holds one).
            let redrawn = name + "-upright." + (header.format == .tiff ? "tiff" : "png")
            var arguments = [current, "-auto-orient", "-depth", "8"]
            if deskew { arguments += ["-deskew", "40%", "+repage"] }
            try await redraw(arguments + [redrawn], in: work, label: label, deadline: deadline)
            current = redrawn
        }
        return current
    }

    /// ImageMagick's `convert` with `arguments`, whose last is the file it must leave in `work`.
    private func redraw(_ arguments: [String], in work: String, label: String, deadline: ContinuousClock.Instant) async throws {
        let finished = try await runner.run(.imagemagick, arguments, in: work, what: label, deadline: deadline)
        guard finished.status == 0, let output = arguments.last, FileManager.default.fileExists(atPath: work + "/" + output) else {
            throw JobFailure(.rejected, code: "not_an_image", "ImageMagick could not read \(label): \(OutputCheck.lastLines(finished.log))")
        }
    }

    /// img2pdf run once over every page (`ScanScript`).
    private func layOut(
        _ pages: [String],
        output: String,
        paper options: ConversionOptions,
        in work: String,
        deadline: ContinuousClock.Instant
    ) async throws -> PDFToolRunner.Finished {
        try writeConfiguration(images: pages, output: output, paper: options, in: work)
        return try await runner.run(.img2pdf, ["-c", ScanScript.source, "scan.json"], in: work, what: "the page images", deadline: deadline)
    }

    /// The `/Rotate` that shows `image`'s text upright, as Tesseract's orientation detection
    /// reads its pixels; nil when it is not sure (a photo with little text).
    private func uprightRotation(of image: String, in work: String, label: String, deadline: ContinuousClock.Instant) async throws -> Int? {
        try requireTool(runner.tesseractPath, package: "tesseract-ocr", for: "auto_rotate")
        let report = work + "/" + image + ".osd.txt"
        // In one of OCR's machine-wide lanes: never more Tesseracts at once than cores.
        let finished = try await LocalFailures.withSlot(OCREngine.machineLanes, tool: "Tesseract", what: label, deadline: deadline) { _ in
            try await runner.run(.tesseract, [image, "-", "--psm", "0"], in: work, what: label, deadline: deadline, stdout: report)
        }
        defer { try? FileManager.default.removeItem(atPath: report) }
        // Too little text to tell is no failure: the page keeps its orientation.
        guard finished.status == 0, let text = try? String(contentsOfFile: report, encoding: .utf8) else { return nil }
        return OrientationReport(text)?.rotation
    }

    private func requireTool(_ path: String, package: String, for what: String) throws(JobFailure) {
        // Rejected, not `.cannotStart`: the scan's other images, and other scans, still work here.
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw JobFailure(
                .rejected,
                code: "unsupported_image_format",
                "\(what) needs \((path as NSString).lastPathComponent), which this gateway does not have; install Debian's \(package) (scripts/install-deps.sh does)"
            )
        }
    }

    private func writeConfiguration(images: [String], output: String, paper options: ConversionOptions, in work: String) throws(JobFailure) {
        var configuration: [String: Any] = [
            "images": images, "output": output, "fallback_paper": [fallbackPaper.width, fallbackPaper.height],
        ]
        if let width = options.paperWidth, let height = options.paperHeight {
            configuration["paper"] = [width * 72, height * 72]
        } else if options.paperWidth != nil || options.paperHeight != nil {
            throw JobFailure(.rejected, code: "invalid_options", "a scan's paper needs both paper_width and paper_height (A4: 8.27 × 11.69 inches)")
        }
        guard let data = try? JSONSerialization.data(withJSONObject: configuration),
            FileManager.default.createFile(atPath: work + "/scan.json", contents: data)
        else {
            throw JobFailure(.transient, code: "storage_error", "could not write the scan's layout in \(work)")
        }
    }

    /// img2pdf said no: PIL's own guards in its words, anything else as it printed it.
    static func layoutFailure(_ log: String) -> JobFailure {
        if log.contains("DecompressionBomb") {
            return JobFailure(.rejected, code: "image_too_large", "an image has more pixels than img2pdf decodes: \(OutputCheck.lastLines(log))")
        }
        if log.contains("cannot identify image file") || log.contains("ImageOpenError") {
            return JobFailure(.rejected, code: "not_an_image", "an image could not be read: \(OutputCheck.lastLines(log))")
        }
        if log.contains("No module named") {
            return JobFailure.converterCannotStart("img2pdf is not installed; install Debian's img2pdf (scripts/install-deps.sh does)")
        }
        return JobFailure(.rejected, code: "scan_failed", "img2pdf could not lay out the pages: \(OutputCheck.lastLines(log))")
    }
}
