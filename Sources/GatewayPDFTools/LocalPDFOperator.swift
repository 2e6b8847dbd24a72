import Foundation
import GatewayJobModel
import GatewaySandbox

/// `PDFOperator` with Debian's qpdf (structure: merge, split, rotate, flatten, encrypt,
/// linearize, metadata), Ghostscript (PDF/A, image recompression) and LibreOffice (PDF/UA).
/// Every run is sealed and bounded (`PDFToolRunner`); files are handed over in `work`, the one
/// directory a run can see.
public struct LocalPDFOperator: PDFOperator {
    let runner: PDFToolRunner
    /// Tesseract for `ocr`, with Poppler to see the pages and qpdf to lay the text under them.
    public let ocr: OCREngine

    public init(
        sandbox: ConverterSandbox,
        qpdfPath: String = LocalPDFOperator.defaultQPDF,
        ghostscriptPath: String = LocalPDFOperator.defaultGhostscript,
        sofficePath: String = LocalPDFOperator.defaultSoffice,
        ocr: OCREngine = OCREngine()
    ) {
        var runner = PDFToolRunner(qpdfPath: qpdfPath, ghostscriptPath: ghostscriptPath, sandbox: sandbox)
        runner.tesseractPath = ocr.languages.tesseractPath
        runner.sofficePath = sofficePath
        self.runner = runner
        self.ocr = ocr
    }

    public static let defaultQPDF = ToolPath.locate("qpdf", preferring: "/usr/bin/qpdf")
    public static let defaultGhostscript = ToolPath.locate("gs", preferring: "/usr/bin/gs")
    public static let defaultSoffice = ToolPath.locate("soffice", preferring: "/usr/lib/libreoffice/program/soffice")

    public func problem() async -> String? { runner.problem }

    public func ocrLanguages() async -> Set<String>? { await ocr.installedLanguages() }

    /// `qpdf --requires-password`: 3 when the password opens the file (or none is needed), 0
    /// when a password other than the one given is required.
    public func opens(_ path: String, password: String, work: String, deadline: ContinuousClock.Instant) async throws -> Bool {
        try ToolFiles.makeDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try ToolFiles.linkOrCopy(path, to: work + "/input.pdf")
        let arguments = try argumentFile(["--requires-password", "--password=" + password, "input.pdf"], in: work)
        let finished = try await runner.run(.qpdf, arguments, in: work, what: "the document", deadline: deadline)
        return finished.status == 3 || finished.status == 2
    }

    public func bookmarks(of path: String, work: String, deadline: ContinuousClock.Instant) async throws -> [PDFBookmark] {
        defer { try? FileManager.default.removeItem(atPath: work) }
        let step = try reading(path, work: work, deadline: deadline)
        return try await Outlines(step: step).read(what: "the document")
    }

    public func metadata(of path: String, work: String, deadline: ContinuousClock.Instant) async throws -> Data {
        defer { try? FileManager.default.removeItem(atPath: work) }
        let step = try reading(path, work: work, deadline: deadline)
        guard FileManager.default.isExecutableFile(atPath: runner.exiftoolPath) else {
            throw JobFailure(
                .cannotStart,
                code: "converter_unavailable",
                "\(runner.exiftoolPath) is missing: install Debian's libimage-exiftool-perl (scripts/install-deps.sh does)"
            )
        }
        let output = work + "/metadata.json"
        // -j: JSON; -n is left out on purpose, so values read as Gotenberg's do ("2006:09:18 16:27:50-04:00").
        let finished = try await runner.run(.exiftool, ["-j", step.inputName], in: work, what: "the document", deadline: deadline, stdout: output)
        guard let data = FileManager.default.contents(atPath: output),
            var files = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]], !files.isEmpty
        else { throw PDFToolRunner.refused(.exiftool, "the document", finished.log) }
        if let error = files[0]["Error"] as? String, !error.isEmpty {
            throw JobFailure(.rejected, code: "operation_failed", "ExifTool could not read the document: \(error)")
        }
        // What describes the file on disk or the tool, not the document (Gotenberg drops the same).
        for tag in [
            "SourceFile", "FileName", "Directory", "FileSize", "FileModifyDate", "FileAccessDate", "FileInodeChangeDate", "FilePermissions",
            "ExifToolVersion", "Error", "Warning",
        ] {
            files[0][tag] = nil
        }
        return try JSONSerialization.data(withJSONObject: files[0], options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// A step over a link to `path` in a fresh `work`, for the operations that only read.
    private func reading(_ path: String, work: String, deadline: ContinuousClock.Instant) throws -> Step {
        try ToolFiles.makeDirectory(work)
        try ToolFiles.linkOrCopy(path, to: work + "/input.pdf")
        return Step(runner: runner, work: work, input: work + "/input.pdf", prefix: "read", deadline: deadline)
    }

    public func combine(_ inputs: [PDFInput], into output: String, work: String, deadline: ContinuousClock.Instant) async throws {
        // One readable library document needs no tool: a copy (never a link, which the new
        // document would share with the original) is the job's PDF.
        if inputs.count == 1, inputs[0].isReadable {
            return try ToolFiles.copy(inputs[0].path, to: output)
        }
        try ToolFiles.makeDirectory(work)
        // Inputs are linked in, so the sandbox needs no view of where they came from. The first
        // is the primary input rather than `--empty`: its document information, outline and XMP
        // carry over (an upload passes through whole, only decrypted).
        var arguments: [String] = []
        for (index, input) in inputs.enumerated() {
            let local = "input-\(index + 1).pdf"
            try ToolFiles.linkOrCopy(input.path, to: work + "/" + local)
            if index == 0 {
                arguments = (input.password.map { ["--password=" + $0] } ?? []) + ["--decrypt", local]
                if inputs.count > 1 { arguments.append("--pages") }
            }
            if inputs.count > 1 {
                arguments.append(local)
                if let password = input.password { arguments.append("--password=" + password) }
                arguments.append("1-z")
            }
        }
        if inputs.count > 1 { arguments.append("--") }
        let what = inputs.count == 1 ? inputs[0].label : "\(inputs.count) documents"
        // The passwords go in an argument file, not on the command line other processes can read.
        try await runner.qpdf(argumentFile(arguments + ["combined.pdf"], in: work), in: work, what: what, deadline: deadline)
        try ToolFiles.moveReplacing(work + "/combined.pdf", to: output)
    }

    public func apply(
        _ operations: [PDFOperation],
        to input: String,
        secrets: JobSecrets,
        work: String,
        deadline: ContinuousClock.Instant
    ) async throws -> [String] {
        try ToolFiles.makeDirectory(work)
        var files = [work + "/step-0.pdf"]
        try ToolFiles.linkOrCopy(input, to: files[0])
        OCRPageText.carry(from: input, to: files[0])
        for (index, operation) in operations.enumerated() {
            var next: [String] = []
            for (part, file) in files.enumerated() {
                let step = Step(runner: runner, work: work, input: file, prefix: "step-\(index + 1)-\(part + 1)", deadline: deadline, ocr: ocr)
                let made = try await step.apply(operation, secrets: secrets)
                // The pages stay where they are through every operation but a split: so does their
                // OCR text (`ocr` writes its own).
                if !["split", "ocr"].contains(operation.name), made.count == 1 { OCRPageText.carry(from: file, to: made[0]) }
                next += made
            }
            files = next
        }
        return files
    }
}

/// One operation on one file: its own output names in `work`, relative to it inside the sandbox.
struct Step: Sendable {
    let runner: PDFToolRunner
    let work: String
    let input: String
    let prefix: String
    let deadline: ContinuousClock.Instant
    var ocr = OCREngine()

    var inputName: String { (input as NSString).lastPathComponent }
    var output: String { work + "/" + prefix + ".pdf" }
    var outputName: String { prefix + ".pdf" }

    func apply(_ operation: PDFOperation, secrets: JobSecrets) async throws -> [String] {
        let what = "the document"
        switch operation {
        case .split(let split):
            return try await self.split(split, what: what)
        case .rotate(let angle, let pages):
            let normalized = ((angle % 360) + 360) % 360
            guard normalized != 0 else { return [input] }
            var range = pages?.qpdfRange ?? "1-z"
            if let pages, pages.clipsPastTheEnd { range = try Self.fitted(pages, pageCount: try await pageCount(what)).qpdfRange }
            try await qpdf([inputName, outputName, "--rotate=+\(normalized):\(range)"], what)
        case .pdfa(let part):
            try await PDFAConversion(step: self).convert(part: part, what: what)
        case .metadata(let update):
            try await MetadataWriter(step: self).write(update, what: what)
        case .flatten:
            try await qpdf(["--generate-appearances", "--flatten-annotations=all", inputName, outputName], what)
        case .encrypt(let encryption):
            try await encrypt(encryption, secrets: secrets, what: what)
        case .watermark(let mark):
            try await WatermarkStamp(step: self).stamp(mark, secrets: secrets, what: what)
        case .optimize(let optimize):
            try await Optimizer(step: self).optimize(optimize, what: what)
        case .bookmarks(let items):
            try await Outlines(step: self).write(items, what: what)
        case .attach(let files):
            try await Attachments(step: self).attach(files, secrets: secrets, what: what)
        case .facturX(let invoice):
            try await FacturXInvoice(step: self).apply(invoice, secrets: secrets, what: what)
        case .ocr(let settings):
            return [try await ocr.run(settings, step: self, what: what)]
        case .pdfua(let part):
            try await PDFUAConversion(step: self).convert(part: part, what: what)
        }
        return [output]
    }

    /// Writes a file the request carried (`JobSecrets.carriedFiles`, by its SHA-256) into the
    /// work directory as `name`, for a tool to read there. Gone (the job outlived its secrets),
    /// the job is refused with `missingCode`: it must be created again with the file.
    func stage(_ sha256: String, as name: String, secrets: JobSecrets, missingCode: String, described: String) throws {
        guard let data = secrets.carriedFiles[sha256] else {
            throw JobFailure(
                .rejected,
                code: missingCode,
                "\(described) (sha256 \(sha256)) is not kept with the job any more; create the job again with it"
            )
        }
        do {
            try data.write(to: URL(fileURLWithPath: work + "/" + name))
        } catch {
            throw JobFailure(.transient, code: "storage_error", "cannot write \(described) for the tool: \(error)")
        }
    }

    func qpdf(_ arguments: [String], _ what: String) async throws {
        try await runner.qpdf(arguments, in: work, what: what, deadline: deadline)
    }

    func ghostscript(_ arguments: [String], _ what: String) async throws {
        try await runner.ghostscript(arguments, in: work, what: what, deadline: deadline)
    }

    /// Page count, from qpdf (the inspector is another process's job; qpdf reads it cheaply).
    func pageCount(_ what: String) async throws -> Int {
        let finished = try await runner.run(.qpdf, ["--show-npages", inputName], in: work, what: what, deadline: deadline)
        guard finished.status == 0 || finished.status == 3, let count = Int(finished.log.split(separator: "\n").first.map(String.init) ?? "") else {
            throw PDFToolRunner.refused(.qpdf, what, finished.log)
        }
        return count
    }

    private func split(_ split: PDFOperation.Split, what: String) async throws -> [String] {
        let count = try await pageCount(what)
        let parts =
            switch split {
            case .every(let size): (count + size - 1) / size
            case .ranges(let selections): selections.count
            case .pages(let selection): try Self.checked(selection, pageCount: count).count
            }
        guard parts <= PDFOperation.maxParts else {
            throw JobFailure(.rejected, code: "too_many_parts", "the split would make \(parts) documents (at most \(PDFOperation.maxParts))")
        }
        switch split {
        case .pages(let selection):
            // The selected pages into one file, then that file page by page: two qpdf runs
            // however many pages.
            let selected = "\(prefix)-selected.pdf"
            try await qpdf([inputName, "--pages", ".", try Self.fitted(selection, pageCount: count).qpdfRange, "--", selected], what)
            return try await Step(runner: runner, work: work, input: work + "/" + selected, prefix: prefix, deadline: deadline)
                .split(.every(1), what: what)
        case .every(let size) where Self.claimsPDFA(input):
            // qpdf's --split-pages leaves the catalog's XMP behind, and with it a PDF/A claim:
            // each part from the document itself instead, which keeps its catalog.
            var files: [String] = []
            for (index, first) in stride(from: 1, through: count, by: size).enumerated() {
                let name = "\(prefix)-part-\(index + 1).pdf"
                try await qpdf([inputName, "--pages", ".", "\(first)-\(min(first + size - 1, count))", "--", name], what)
                files.append(work + "/" + name)
            }
            return files
        case .every(let size):
            // One qpdf run writes every part (`%d` becomes each part's zero-padded page range, so
            // the names sort in page order): a page-by-page split of a long document would
            // otherwise start the sandbox once per page.
            let stem = "\(prefix)-part-"
            try await qpdf([inputName, "--split-pages=\(size)", stem + "%d.pdf"], what)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: work)) ?? []).filter { $0.hasPrefix(stem) }.sorted()
            guard names.count == parts else {
                throw JobFailure(.transient, code: "operation_failed", "qpdf wrote \(names.count) parts of \(parts) while splitting \(what)")
            }
            return names.map { work + "/" + $0 }
        case .ranges(let selections):
            var files: [String] = []
            // Leniently, a range wholly past the end makes no part (as pdfcpu leaves it out).
            let kept = selections.allSatisfy(\.clipsPastTheEnd) ? selections.filter { $0.clipped(to: count) != nil } : selections
            for (index, selection) in (kept.isEmpty ? selections : kept).enumerated() {
                let name = "\(prefix)-part-\(index + 1).pdf"
                try await qpdf([inputName, "--pages", ".", try Self.fitted(selection, pageCount: count).qpdfRange, "--", name], what)
                files.append(work + "/" + name)
            }
            return files
        }
    }

    /// Whether the PDF's XMP claims PDF/A (`pdfaid:part`): PDF/A keeps its metadata stream
    /// unfiltered, so the words are in the file as they are. Read in chunks, never whole.
    static func claimsPDFA(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let needle = Data("pdfaid:part".utf8)
        var tail = Data()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            let window = tail + chunk
            if window.range(of: needle) != nil { return true }
            tail = window.suffix(needle.count)
        }
        return false
    }

    /// A selection checked against the real page count (a merged or converted document's is
    /// only known now): the failure names the range.
    static func checked(_ selection: PageSelection, pageCount: Int) throws -> [Int] {
        do {
            return try selection.pages(of: pageCount)
        } catch {
            throw JobFailure(.rejected, code: error.code, error.message)
        }
    }

    /// The selection to hand qpdf: checked, and clipped to the document when it clips.
    static func fitted(_ selection: PageSelection, pageCount: Int) throws -> PageSelection {
        _ = try checked(selection, pageCount: pageCount)
        return selection.clipsPastTheEnd ? selection.clipped(to: pageCount) ?? selection : selection
    }

    private func encrypt(_ encryption: PDFOperation.Encryption, secrets: JobSecrets, what: String) async throws {
        let user = secrets.userPassword ?? encryption.userPassword ?? ""
        // Without an owner password anyone could lift the restrictions: make one nobody knows.
        let owner = secrets.ownerPassword ?? encryption.ownerPassword ?? UUID().uuidString + UUID().uuidString
        let allowed = encryption.allow
        func flag(_ permission: PDFOperation.Encryption.Permission) -> String { allowed.contains(permission) ? "y" : "n" }
        let arguments = [
            "--encrypt", user, owner, "256",
            "--print=" + (allowed.contains(.print) ? "full" : "none"),
            "--extract=" + flag(.copy),
            "--modify-other=" + flag(.modify),
            "--annotate=" + flag(.annotate),
            "--form=" + flag(.fillForms),
            "--assemble=" + flag(.assemble),
            "--accessibility=" + flag(.accessibility),
            "--", inputName, outputName,
        ]
        try await runner.qpdf(try argumentFile(arguments, in: work), in: work, what: what, deadline: deadline)
    }
}

/// qpdf's `@file`: the arguments one per line in a file only this process and the sandbox can
/// read, so passwords never appear in a process list.
func argumentFile(_ arguments: [String], in work: String) throws -> [String] {
    let name = ".arguments-\(UUID().uuidString.prefix(8))"
    let path = work + "/" + name
    guard FileManager.default.createFile(atPath: path, contents: Data(arguments.joined(separator: "\n").utf8), attributes: [.posixPermissions: 0o600])
    else {
        throw JobFailure(.transient, code: "storage_error", "could not write qpdf's argument file in \(work)")
    }
    return ["@" + name]
}
