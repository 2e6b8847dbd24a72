import ArgumentParser
import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayStore

/// The options every PDF operation command shares: where the result goes, and the passwords.
struct OperationOptions: ParsableArguments {
    @Option(help: "Folder path or id for the result. Default: the (first) document's folder.")
    var folder: String?

    @Option(help: "Name of the result. Default: the (first) document's name.")
    var name: String?

    @Option(help: "When the name is taken: fail, or rename to 'Name 01', ….")
    var onConflict: ConflictPolicy = .rename

    @Option(help: "Opens encrypted documents (also $PDFGATE_PDF_PASSWORD, which stays out of the process list).")
    var password: String?

    @Option(help: "Seconds the job may take (default 120).")
    var timeout: Double?

    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions

    var secrets: JobSecrets {
        JobSecrets(password: password ?? environmentSecret("PDFGATE_PDF_PASSWORD"))
    }

    /// Runs one PDF_TO_PDF job on `documents` with `operations` in an engine of the command's
    /// own, and prints what it filed, as `convert` does.
    func run(_ documents: [String], _ operations: [PDFOperation], replace: Bool = false, what: String) async throws {
        try await reporting(json: output.json) {
            let ids = try documents.map(parseID)
            let failed = try await withEmbeddedEngine(library, what: what, timeout: timeout) { assembly in
                let spec = JobSpec(
                    type: .pdfToPDF,
                    folder: folder,
                    name: name,
                    onConflict: onConflict,
                    timeoutSeconds: timeout,
                    documents: ids,
                    operations: operations.isEmpty ? nil : operations,
                    replaceOriginal: replace ? true : nil
                )
                let job = try await assembly.intake.create(spec, owner: library.resolvedOwner, secrets: secrets).job
                let progress = JobProgress(engine: assembly.engine)
                progress.track(job.id, source: what)
                let finished = try await watch([(what, job.id)], engine: assembly.engine, progress: progress)
                return try await reportJobs(finished, library: assembly.library, json: output.json)
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }
}

/// `--replace`: the result takes the original's place and id.
struct ReplaceFlag: ParsableArguments {
    @Flag(help: "Write the result over the document, which keeps its id (default: file a new document).")
    var replace = false
}

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge library documents, in order, into a new one.",
        discussion: "To convert files and web pages and merge them in one go: pdfgate convert --merge FILE|URL …"
    )
    @Argument(help: "Two or more document ids.") var documents: [String]
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if let other = documents.first(where: { UUID(uuidString: $0) == nil }) {
            throw ValidationError("'\(other)' is not a document id; to convert and merge files and URLs, run pdfgate convert --merge \(other) …")
        }
        if documents.count < 2 { throw ValidationError("name two or more documents to merge") }
    }

    func run() async throws { try await options.run(documents, [], what: "merge") }
}

struct SplitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a document every N pages or by ranges, into 'Name 01', 'Name 02' … beside it."
    )
    @Argument(help: "Document id.") var document: String
    @Option(help: "Pages per part.") var every: Int?
    @Option(name: .customLong("range"), help: "One part per range, e.g. --range 1-3 --range 4- (repeatable).") var ranges: [String] = []
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if (every == nil) == ranges.isEmpty { throw ValidationError("give either --every N or one or more --range") }
        if let every, every < 1 { throw ValidationError("--every must be at least 1") }
    }

    func run() async throws {
        let split: PDFOperation.Split = try every.map { .every($0) } ?? .ranges(ranges.map { try PageSelection($0, field: "--range") })
        try await options.run([document], [.split(split)], what: "split")
    }
}

struct PDFACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pdfa", abstract: "Make an archival PDF/A copy of a document (Ghostscript).")
    @Argument(help: "Document id.") var document: String
    @Option(help: "Part and conformance: 1b, 2b or 3b.") var part = "2b"
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if PDFOperation.PDFAPart(rawValue: part.lowercased()) == nil { throw ValidationError("--part '\(part)' is not one of 1b, 2b, 3b") }
    }

    func run() async throws {
        try await options.run([document], [.pdfa(PDFOperation.PDFAPart(rawValue: part.lowercased())!)], replace: replace.replace, what: "pdfa")
    }
}

struct MetaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "meta", abstract: "Write a document's title, author, subject, keywords or creator.")
    @Argument(help: "Document id.") var document: String
    @Option var title: String?
    @Option var author: String?
    @Option var subject: String?
    @Option var keywords: String?
    @Option var creator: String?
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    var update: PDFOperation.MetadataUpdate {
        PDFOperation.MetadataUpdate(title: title, author: author, subject: subject, keywords: keywords, creator: creator)
    }

    func validate() throws {
        if update == PDFOperation.MetadataUpdate() {
            throw ValidationError("give at least one of --title, --author, --subject, --keywords, --creator")
        }
    }

    func run() async throws {
        try await options.run([document], [.metadata(update)], replace: replace.replace, what: "meta")
    }
}

struct RotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Turn pages clockwise by a multiple of 90°.")
    @Argument(help: "Document id.") var document: String
    @Option(help: "Degrees clockwise: 90, 180, 270 (or negative).") var angle: Int
    @Option(help: "Pages, e.g. 1-3,5 (default: all).") var pages: String?
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if angle % 90 != 0 { throw ValidationError("--angle \(angle) is not a multiple of 90") }
    }

    func run() async throws {
        let selection = try pages.map { try PageSelection($0, field: "--pages") }
        try await options.run([document], [.rotate(angle: angle, pages: selection)], replace: replace.replace, what: "rotate")
    }
}

struct EncryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a copy of a document with AES-256.",
        discussion: "Passwords on the command line show in the process list: prefer $PDFGATE_USER_PASSWORD and $PDFGATE_OWNER_PASSWORD."
    )
    @Argument(help: "Document id.") var document: String
    @Option(help: "Needed to open it (also $PDFGATE_USER_PASSWORD).") var userPassword: String?
    @Option(help: "Needed to change its permissions (also $PDFGATE_OWNER_PASSWORD).") var ownerPassword: String?
    @Option(help: "What readers may do, comma-separated: print, copy, modify, annotate, fill_forms, assemble, accessibility (default: all).")
    var allow: String?
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    /// What `--allow` names; all when it is absent.
    func permissions() throws -> Set<PDFOperation.Encryption.Permission> {
        guard let allow else { return Set(PDFOperation.Encryption.Permission.allCases) }
        return try Set(
            allow.split(separator: ",").map { name in
                guard let permission = PDFOperation.Encryption.Permission(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--allow '\(name)' is not one of print, copy, modify, annotate, fill_forms, assemble, accessibility")
                }
                return permission
            }
        )
    }

    func validate() throws {
        _ = try permissions()
    }

    func run() async throws {
        let user = userPassword ?? environmentSecret("PDFGATE_USER_PASSWORD")
        let owner = ownerPassword ?? environmentSecret("PDFGATE_OWNER_PASSWORD")
        let permissions = try permissions()
        let encryption = PDFOperation.Encryption(userPassword: user, ownerPassword: owner, allow: permissions)
        try await options.run([document], [.encrypt(encryption)], replace: replace.replace, what: "encrypt")
    }
}

struct WatermarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watermark",
        abstract: "Lay text or a PNG across chosen pages of a copy of a document."
    )
    @Argument(help: "Document id.") var document: String
    @Option(help: "The text, e.g. DRAFT.") var text: String?
    @Option(help: "A PNG file instead of text.") var image: String?
    @Option(help: "Pages, e.g. 1-3,5 (default: all).") var pages: String?
    @Option(help: "0 to 1.") var opacity = 0.25
    @Option(help: "Degrees, counter-clockwise.") var angle = 45.0
    @Option(help: "Text size in points.") var fontSize = 72.0
    @Option(help: "An image's width as a share of the page's.") var scale = 0.5
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if (text == nil) == (image == nil) { throw ValidationError("give --text or --image (a PNG), one of the two") }
        if let text, text.trimmingCharacters(in: .whitespaces).isEmpty || text.count > 200 || text.contains("\n") {
            throw ValidationError("--text needs 1 to 200 characters on one line")
        }
        if !(opacity > 0 && opacity <= 1) { throw ValidationError("--opacity must be above 0 and at most 1") }
        if !(scale > 0 && scale <= 1) { throw ValidationError("--scale must be above 0 and at most 1") }
        if !(4...400).contains(fontSize) { throw ValidationError("--font-size must be 4 to 400 points") }
        if !(angle.isFinite && abs(angle) <= 360) { throw ValidationError("--angle must be -360 to 360 degrees") }
    }

    func run() async throws {
        var stamp: PDFOperation.StampImage?
        if let image {
            guard let data = FileManager.default.contents(atPath: image) else { throw ValidationError("cannot read '\(image)'") }
            stamp = try PDFOperation.StampImage.png(data, field: "--image")
        }
        let mark = PDFOperation.Watermark(
            text: text,
            image: stamp,
            pages: try pages.map { try PageSelection($0, field: "--pages") },
            opacity: opacity,
            fontSize: fontSize,
            angle: angle,
            scale: scale
        )
        try await options.run([document], [.watermark(mark)], replace: replace.replace, what: "watermark")
    }
}

struct OptimizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimize",
        abstract: "Shrink a document: recompressed images, packed objects, linearized for the web."
    )
    @Argument(help: "Document id.") var document: String
    @Option(help: "Images: keep, screen, ebook or printer.") var images = "ebook"
    @Flag(help: "Do not linearize.") var noLinearize = false
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    func validate() throws {
        if PDFOperation.Optimize.Images(rawValue: images) == nil {
            throw ValidationError("--images '\(images)' is not one of keep, screen, ebook, printer")
        }
    }

    func run() async throws {
        let preset = PDFOperation.Optimize.Images(rawValue: images)!
        try await options.run([document], [.optimize(.init(images: preset, linearize: !noLinearize))], replace: replace.replace, what: "optimize")
    }
}

struct OCRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Add an invisible text layer (Tesseract) to the pages of a document that have no text.",
        discussion: """
            The page images stay as they are; the text makes a scan searchable and copyable. \
            Languages are Tesseract's codes joined by '+' (installed packs: tesseract --list-langs). \
            A long scan may need a --timeout beyond the default 120 s (about 2 s a page on two cores).
            """
    )
    @Argument(help: "Document id.") var document: String
    @Option(name: .customLong("lang"), help: "Languages, e.g. eng+deu.") var languages = "eng"
    @Flag(help: "OCR pages that already have text too (their text stays; a second layer is added).") var force = false
    @OptionGroup var replace: ReplaceFlag
    @OptionGroup var options: OperationOptions

    var codes: [String] { languages.split(separator: "+", omittingEmptySubsequences: false).map(String.init) }

    func validate() throws {
        if let problem = PDFOperation.OCR.languagesProblem(codes, field: "--lang") { throw ValidationError(problem.message) }
    }

    func run() async throws {
        try await options.run([document], [.ocr(.init(languages: codes, force: force))], replace: replace.replace, what: "ocr")
    }
}
