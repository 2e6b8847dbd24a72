import Foundation
import GatewayJobModel
import GatewayProcess
import GatewaySandbox

/// Runs qpdf, Ghostscript and the other PDF tools the way the converters run their tools (DESIGN §8): sealed in the
/// sandbox with only the operation's directory visible and writable, under the same memory,
/// CPU and process limits, killed at the job's deadline or when the job is cancelled. A PDF
/// from the library is as hostile as any upload: both tools are big C/C++ parsers.
package struct PDFToolRunner: Sendable {
    let qpdfPath: String
    let ghostscriptPath: String
    /// Reads metadata the way Gotenberg does (its `metadata/read` is ExifTool's JSON).
    var exiftoolPath = Self.defaultExifTool
    /// Scans: img2pdf's Python, ImageMagick's `convert`, libheif's `heif-convert`.
    package var pythonPath = "/usr/bin/python3"
    package var convertPath = ToolPath.locate("convert", preferring: "/usr/bin/convert")
    package var heifConvertPath = ToolPath.locate("heif-convert", preferring: "/usr/bin/heif-convert")
    /// LibreOffice for `pdfua`: Draw imports the PDF and exports it tagged, a fresh soffice each time.
    var sofficePath = LocalPDFOperator.defaultSoffice
    let sandbox: ConverterSandbox

    /// Tesseract, for `ocr` and a scan's `auto_rotate` (its data directory is read where Debian put it, under /usr).
    package var tesseractPath = OCREngine.defaultTesseract
    /// Where Poppler's command-line tools are (`pdfinfo`, `pdftotext`, `pdfimages`, `pdftoppm`): `ocr` surveys pages with them.
    var popplerDirectory = Self.defaultPopplerDirectory

    package static let defaultExifTool = ToolPath.locate("exiftool", preferring: "/usr/bin/exiftool")
    static let defaultPopplerDirectory = (ToolPath.locate("pdftoppm", preferring: "/usr/bin/pdftoppm") as NSString)
        .deletingLastPathComponent

    package enum Tool: String, Sendable {
        case qpdf, ghostscript, exiftool
        /// `pdfgate` itself, for the helpers that draw with cairo (`stamp-page`).
        case helper
        /// Python running `ScanScript` (img2pdf).
        case img2pdf
        /// ImageMagick's `convert`: deskew, mirrored photos turned over.
        case imagemagick
        case heifConvert
        case tesseract
        /// A one-shot `soffice`, with a profile of its own in the step's directory.
        case libreOffice
        /// Poppler's tools, which read a page as every viewer does.
        case pdfinfo, pdftotext, pdfimages, pdftoppm

        var name: String {
            switch self {
            case .qpdf: "qpdf"
            case .ghostscript: "Ghostscript"
            case .exiftool: "ExifTool"
            case .helper: "the stamp helper"
            case .img2pdf: "img2pdf"
            case .imagemagick: "ImageMagick"
            case .heifConvert: "heif-convert"
            case .tesseract: "Tesseract"
            case .libreOffice: "LibreOffice"
            case .pdfinfo, .pdftotext, .pdfimages, .pdftoppm: rawValue
            }
        }
    }

    /// What a run left: its exit status and the tail of what it printed.
    package struct Finished: Sendable {
        package var status: Int32
        package var log: String
    }

    /// Runs `tool` with `arguments` in `work` (its only writable, visible directory) and answers
    /// how it exited. A crash, a limit or the deadline become the converters' failures.
    /// `stdout`, when given, is a file in `work` that gets what the tool prints (qpdf's JSON);
    /// `environment` adds to the tool's (Tesseract's thread limit).
    package func run(
        _ tool: Tool,
        _ arguments: [String],
        in work: String,
        what: String,
        deadline: ContinuousClock.Instant,
        stdout: String? = nil,
        environment: [String: String] = [:]
    ) async throws -> Finished {
        let log = work + "/\(tool.rawValue)-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let spec = sandbox.wrap(
            ChildSpec(
                executable: executable(tool),
                arguments: arguments,
                // One thread per tool unless the caller says otherwise: runs are sized by the caller
                // (OCR lanes, a slot each), and Tesseract or ImageMagick spreading over every core
                // under load runs several times slower.
                environment: childEnvironment(privateDirectory: work + "/.env", extra: ["OMP_THREAD_LIMIT": "1"].merging(environment) { $1 }),
                workingDirectory: work,
                stdout: .file(stdout ?? log),
                stderr: .file(log)
            ),
            mounts: .init(writable: [work]),
            backstops: .init(addressSpace: true, cpu: true)
        )
        let outcome: OneShotOutcome
        do throws(SpawnFailure) {
            outcome = try await runOneShot(spec, deadline: deadline, limits: sandbox.limits)
        } catch {
            throw JobFailure.converterUnavailable("\(tool.name) could not be started: \(error.message)")
        }
        switch outcome {
        case .cancelled: throw CancellationError()
        case .timedOut: throw LocalFailures.timedOut(tool.name, what)
        case .limitExceeded(let kind): throw sandbox.limits.failure(kind, tool: tool.name, what: what)
        case .finished(.signaled(let signal)):
            throw LocalFailures.crashed(tool.name, what, "was killed by signal \(signal)", log: OutputCheck.tail(ofFile: log))
        case .finished(.exited(let status)):
            return Finished(status: status, log: OutputCheck.tail(ofFile: log))
        }
    }

    private func executable(_ tool: Tool) -> String {
        switch tool {
        case .qpdf: qpdfPath
        case .ghostscript: ghostscriptPath
        case .exiftool: exiftoolPath
        case .helper: sandbox.helper
        case .img2pdf: pythonPath
        case .imagemagick: convertPath
        case .heifConvert: heifConvertPath
        case .tesseract: tesseractPath
        case .libreOffice: sofficePath
        case .pdfinfo, .pdftotext, .pdfimages, .pdftoppm: popplerDirectory + "/" + tool.rawValue
        }
    }

    /// qpdf, where exit 3 means "done, with warnings" (a repaired input): success.
    package func qpdf(_ arguments: [String], in work: String, what: String, deadline: ContinuousClock.Instant) async throws {
        let finished = try await run(.qpdf, arguments, in: work, what: what, deadline: deadline)
        guard finished.status == 0 || finished.status == 3 else { throw Self.refused(.qpdf, what, finished.log) }
    }

    /// What every Ghostscript run starts with: quiet, no prompts, no file access beyond its arguments.
    static let ghostscriptBase = ["-q", "-dNOPAUSE", "-dBATCH", "-dSAFER"]

    /// Ghostscript, which exits non-zero on any error.
    func ghostscript(_ arguments: [String], in work: String, what: String, deadline: ContinuousClock.Instant) async throws {
        let finished = try await run(.ghostscript, Self.ghostscriptBase + arguments, in: work, what: what, deadline: deadline)
        guard finished.status == 0 else { throw Self.refused(.ghostscript, what, finished.log) }
    }

    /// A tool that ran and said no: the input is what it cannot read. A wrong or missing
    /// password gets its own code, since the client can fix that one.
    static func refused(_ tool: Tool, _ what: String, _ log: String) -> JobFailure {
        if log.contains("invalid password") {
            return JobFailure(
                .rejected,
                code: "wrong_password",
                "\(what) is encrypted and the password given for it does not open it; send the right one in \"password\" (or \"passwords\" by document id)"
            )
        }
        return JobFailure(.rejected, code: "operation_failed", "\(tool.name) could not process \(what): \(OutputCheck.lastLines(log))")
    }

    /// Whether both tools are installed.
    var problem: String? {
        for (path, package) in [(qpdfPath, "qpdf"), (ghostscriptPath, "ghostscript")] where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is missing: install Debian's \(package) (scripts/install-deps.sh does)"
        }
        return nil
    }
}

extension PDFToolRunner {
    /// A runner with both tools' paths and the other tools where Debian puts them.
    package init(qpdfPath: String, ghostscriptPath: String, sandbox: ConverterSandbox) {
        self.init(qpdfPath: qpdfPath, ghostscriptPath: ghostscriptPath, sofficePath: LocalPDFOperator.defaultSoffice, sandbox: sandbox)
    }
}
