import Foundation
import GatewayFonts
import GatewayJobModel
import GatewayPDFTools
import GatewaySandbox
import GatewayURLSecurity
import Synchronization

/// How many warm instances of each tool the local converter keeps (each takes one document at
/// a time): the operator's knob for a bigger machine.
public struct ToolSlots: Sendable, Equatable {
    public var libreOffice = 2
    public var chromium = 2
    public var calibre = 2

    public init() {}
}

/// The embedded converter: LibreOffice for office files, Chromium for web pages and uploaded
/// HTML, Calibre for ebooks, all as local subprocesses (DESIGN §4).
public final class LocalConverter: Converter {
    /// Slot counts, tool paths and where profiles and scratch files live.
    public struct Configuration: Sendable {
        /// Warm LibreOffice instances, each converting one document at a time. More than the
        /// number of cores gains nothing.
        public var libreOfficeSlots: Int
        /// A LibreOffice instance is restarted after this many conversions (it leaks memory).
        public var maxConversionsPerLibreOfficeInstance: Int
        /// How long a LibreOffice instance may take to start (the first start creates its profile).
        public var libreOfficeStartTimeout: Duration
        /// Chromium print jobs at a time, each slot a warm browser.
        public var chromiumSlots: Int
        /// A browser is restarted after this many jobs (each leaves a little behind).
        public var maxJobsPerChromiumInstance: Int
        /// Warm Calibre workers, each converting one book at a time (and rendering it with as many
        /// pages side by side as there are cores); started on first use, each holds about 290 MiB
        /// resident, 160 MiB of it private, once it has converted a few books.
        public var calibreSlots: Int
        /// A Calibre worker is restarted after this many books (it keeps a little of each).
        public var maxConversionsPerCalibreWorker: Int
        /// LibreOffice's `soffice` launcher.
        public var sofficePath: String
        /// A python3 that can `import uno` (Debian's, not a pyenv one).
        public var pythonPath: String
        /// The Chromium binary itself, not Debian's wrapper script when it can be found.
        public var chromiumPath: String
        /// Calibre's `ebook-convert`.
        public var ebookConvertPath: String
        /// How much virtual time Chromium gives a page's scripts and timers before printing.
        public var chromiumVirtualTimeBudget: Duration
        /// Parent of the converter's private directory (LibreOffice profiles, the UNO worker).
        public var baseDirectory: String
        /// SSRF rules for URL jobs: the host is resolved and checked, and Chromium is pinned to
        /// the checked address.
        public var urlGuard: URLGuard
        /// How every tool process is sealed and what it may use (DESIGN §8).
        public var sandbox: ConverterSandbox
        /// The operator's folder of fonts (`--fonts`), which every tool sees besides the system's.
        public var fontFolder: FontFolder?

        /// Defaults suit a 2-core machine with Debian's packages installed.
        public init(
            libreOfficeSlots: Int = ToolSlots().libreOffice,
            maxConversionsPerLibreOfficeInstance: Int = 200,
            libreOfficeStartTimeout: Duration = .seconds(60),
            chromiumSlots: Int = ToolSlots().chromium,
            maxJobsPerChromiumInstance: Int = 100,
            calibreSlots: Int = ToolSlots().calibre,
            maxConversionsPerCalibreWorker: Int = 50,
            sofficePath: String = Configuration.locate("soffice", preferring: "/usr/lib/libreoffice/program/soffice"),
            pythonPath: String = "/usr/bin/python3",
            chromiumPath: String = Configuration.locate("chromium", preferring: "/usr/lib/chromium/chromium"),
            ebookConvertPath: String = Configuration.locate("ebook-convert", preferring: "/usr/bin/ebook-convert"),
            chromiumVirtualTimeBudget: Duration = .seconds(5),
            baseDirectory: String = FileManager.default.temporaryDirectory.path,
            urlGuard: URLGuard = URLGuard(),
            sandbox: ConverterSandbox = ConverterSandbox(),
            fontFolder: FontFolder? = nil
        ) {
            self.libreOfficeSlots = libreOfficeSlots
            self.maxConversionsPerLibreOfficeInstance = maxConversionsPerLibreOfficeInstance
            self.libreOfficeStartTimeout = libreOfficeStartTimeout
            self.chromiumSlots = chromiumSlots
            self.maxJobsPerChromiumInstance = maxJobsPerChromiumInstance
            self.calibreSlots = calibreSlots
            self.maxConversionsPerCalibreWorker = maxConversionsPerCalibreWorker
            self.sofficePath = sofficePath
            self.pythonPath = pythonPath
            self.chromiumPath = chromiumPath
            self.ebookConvertPath = ebookConvertPath
            self.chromiumVirtualTimeBudget = chromiumVirtualTimeBudget
            self.baseDirectory = baseDirectory
            self.urlGuard = urlGuard
            self.sandbox = sandbox
            self.fontFolder = fontFolder
        }

        /// `preferred` when it is executable, else `name` found on PATH, else `preferred` anyway
        /// (`ToolPath`).
        public static func locate(_ name: String, preferring preferred: String) -> String {
            ToolPath.locate(name, preferring: preferred)
        }
    }

    /// `local`; the backends report `local.libreoffice`, `local.chromium`, `local.calibre`.
    public let name = "local"
    /// The configuration the converter was created with, its sandbox showing tools its fonts.
    public let configuration: Configuration
    /// This converter's private directory under `baseDirectory`; removed by `shutdown()`.
    public let directory: String
    /// The fonts every tool sees; its generation moves on when the operator's folder changes.
    public let fonts: SandboxFonts
    let libreOffice: LibreOfficePool
    let chromium: ChromiumConverter
    let calibre: CalibreConverter
    /// qpdf and Ghostscript, sealed like the converters: PDF_TO_PDF jobs and every job's operations.
    public let pdfTools: LocalPDFOperator
    let pdf: PDFCombiner
    let scan: ScanConverter
    /// Restarts of the warm tools since this converter was made — every start of a slot's tool
    /// after its first (a crash, a hang, a recycle after its jobs) — as Gotenberg counts them.
    public var restarts: (chromium: Int, libreOffice: Int) {
        let again = { (starts: Int) in max(0, starts - 1) }
        return (
            chromium.slots.slots.reduce(0) { $0 + again($1.startCount) },
            libreOffice.workers.slots.slots.reduce(0) { $0 + again($1.startCount) }
        )
    }
    /// Whether each tool starts, for readiness.
    private let toolCheck: ToolCheck
    private let versions: ToolVersions
    /// The sandbox's latest check: nil when it works.
    private let sandboxCheck = Mutex<Task<String?, Never>?>(nil)
    /// The installed families, lowercased, and the font generation they were read at.
    private let installedFamilies = Mutex<(generation: Int, families: Set<String>)?>(nil)

    /// Creates the converter; no tool starts until the first conversion needs it.
    public init(configuration: Configuration = Configuration()) throws {
        // Absolute, because the tools run with their slot directory as working directory and
        // LibreOffice takes its profile as a file:// URL.
        let base = URL(fileURLWithPath: configuration.baseDirectory).standardizedFileURL.path
        directory = base + "/pdfgate-local-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        // Every tool, sealed or not, reads the same fontconfig file: the Office aliases and the
        // operator's folder reach LibreOffice, Chromium, Calibre and Ghostscript alike.
        var configuration = configuration
        fonts = try ConverterFonts.prepare(in: directory + "/fonts", folder: configuration.fontFolder)
        configuration.sandbox = configuration.sandbox.with(fonts: fonts)
        self.configuration = configuration
        libreOffice = try LibreOfficePool(configuration: configuration, directory: directory + "/libreoffice")
        toolCheck = ToolCheck(configuration: configuration)
        versions = ToolVersions(configuration: configuration)
        chromium = ChromiumConverter(configuration: configuration, directory: directory + "/chromium")
        calibre = try CalibreConverter(configuration: configuration, directory: directory + "/calibre")
        pdfTools = LocalPDFOperator(sandbox: configuration.sandbox, sofficePath: configuration.sofficePath)
        pdf = PDFCombiner(tools: pdfTools)
        var scanTools = PDFToolRunner(
            qpdfPath: LocalPDFOperator.defaultQPDF,
            ghostscriptPath: LocalPDFOperator.defaultGhostscript,
            sandbox: configuration.sandbox
        )
        scanTools.pythonPath = configuration.pythonPath
        scan = ScanConverter(runner: scanTools)
    }

    /// Converts with the backend for the job's type and file name; see `backend(for:)`.
    /// Refuses while the sandbox cannot start: no tool runs unsealed unless the operator said so.
    /// A tool is probed before its first conversion (a fraction of a second, once it passes): one
    /// that cannot start fails the job at once as `.cannotStart`, naming what to install, instead
    /// of a warm pool retrying its start until the job's deadline.
    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        if let problem = await sandboxProblem() {
            throw JobFailure.converterCannotStart(problem)
        }
        if let problem = await toolCheck.problem(Self.tool(for: request)) {
            throw JobFailure.converterCannotStart(problem)
        }
        // The document's own markup is read first (a converter may consume its input); asking
        // fontconfig about what it names runs beside the conversion, not before it.
        let document = requestedFonts(request)
        async let warnings = fontWarnings(for: document)
        try await backend(for: request).convert(request, events: events)
        let said = await warnings
        if !said.isEmpty { await events(.warned(said)) }
    }

    /// The families an office file, uploaded page or ebook asks for, read from its own markup.
    func requestedFonts(_ request: ConversionRequest) -> DocumentFonts {
        guard case .file(let path, let name) = request.source, [.libreOffice, .chromium, .calibre].contains(Self.tool(for: request)) else {
            return DocumentFonts()
        }
        return DocumentFonts.read(path, name: name)
    }

    /// The families `document` asks for that are not installed, each with what draws it
    /// instead, as the job's warnings.
    func fontWarnings(for document: DocumentFonts) async -> [String] {
        guard !document.stacks.isEmpty else { return [] }
        let catalog = fontCatalog
        let generation = fonts.generation.current
        let known = installedFamilies.withLock { $0?.generation == generation ? $0?.families : nil }
        let installed: Set<String>
        if let known {
            installed = known
        } else {
            // Without fontconfig's answer nothing can be said; the conversion goes on regardless.
            guard let families = try? await catalog.families() else { return [] }
            installed = Set(families.map { $0.family.lowercased() })
            installedFamilies.withLock { $0 = (generation, installed) }
        }
        return await catalog.substitutions(in: document, installed: installed).map(\.warning)
    }

    /// True when every tool's executable is present and the sandbox starts.
    public func isReady() async -> Bool {
        let ready = [
            await libreOffice.isReady(), await chromium.isReady(), await calibre.isReady(), await pdf.isReady(), await scan.isReady(),
            await sandboxProblem() == nil,
        ]
        return !ready.contains(false)
    }

    /// The sandbox and every tool of `type`, checked afresh (what a check passed before included).
    public func startProblem(for type: JobType) async -> JobFailure? {
        if let problem = await sandboxProblem(fresh: true) { return .converterCannotStart(problem) }
        for tool in Self.tools(for: type) {
            if let problem = await toolCheck.problem(tool, fresh: true) { return .converterCannotStart(problem) }
        }
        return nil
    }

    /// The tools jobs of `type` may run: office files take LibreOffice, and Chromium for
    /// uploaded HTML; URLs Chromium; ebooks Calibre; PDFs qpdf and Ghostscript; scans img2pdf.
    public static func tools(for type: JobType) -> [LocalTool] {
        switch type {
        case .docToPDF: [.libreOffice, .chromium]
        case .urlToPDF, .screenshot: [.chromium]
        case .ebookToPDF: [.calibre]
        case .pdfToPDF: [.pdf]
        case .scanToPDF: [.scan]
        }
    }

    /// The tool `request` runs: its type and, for office jobs, its file name decide.
    static func tool(for request: ConversionRequest) -> LocalTool {
        switch (request.type, request.source) {
        case (.pdfToPDF, _), (_, .pdfs): .pdf
        case (.scanToPDF, _), (_, .images): .scan
        case (_, .url), (.urlToPDF, _), (.screenshot, _): .chromium
        case (.docToPDF, .file(_, let originalFilename)):
            SourceFormats.html.contains(InputStaging.fileExtension(of: originalFilename)) ? .chromium : .libreOffice
        case (.ebookToPDF, .file): .calibre
        }
    }

    /// What fontconfig offers the tools: families, their scripts, the stand-ins for missing ones.
    public var fontCatalog: FontCatalog {
        FontCatalog(fonts: fonts, folder: configuration.fontFolder)
    }

    /// Each tool's version as it prints it, by Gotenberg's module name (`qpdf`, `chromium`,
    /// `libreoffice-api`, `exiftool`) or ours (`calibre`, `ghostscript`); asked once.
    public func toolVersions() async -> [String: String] {
        await versions.all()
    }

    /// Why `tool` cannot start here, naming the Debian package to install; nil when it starts.
    public func toolProblem(_ tool: LocalTool) async -> String? {
        await toolCheck.problem(tool)
    }

    /// Why tools cannot run sealed here, or nil: a sealed `/bin/true`, run once and remembered;
    /// `fresh` runs it again (the engine's re-check of a type that is out, so a fixed host heals).
    public func sandboxProblem(fresh: Bool = false) async -> String? {
        let sandbox = configuration.sandbox
        let check = sandboxCheck.withLock { check in
            if let check, !fresh { return check }
            // Awaited by every caller of `sandboxProblem`; it ends on its own (one sealed `/bin/true`).
            let started = Task { await sandbox.problem() }
            check = started
            return started
        }
        return await check.value
    }

    /// Ends every warm LibreOffice, browser and Calibre worker (conversions in flight fail as transient) and removes
    /// the private directory. The converter refuses work afterwards.
    public func shutdown() async {
        async let calibreDown: Void = calibre.shutdown()
        async let chromiumDown: Void = chromium.shutdown()
        await libreOffice.shutdown()
        _ = await (calibreDown, chromiumDown)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// URL_TO_PDF → Chromium; DOC_TO_PDF → Chromium for .html/.htm, LibreOffice otherwise;
    /// EBOOK_TO_PDF → Calibre; PDF_TO_PDF → qpdf (`PDFCombiner`); SCAN_TO_PDF → img2pdf.
    func backend(for request: ConversionRequest) -> any Converter {
        switch Self.tool(for: request) {
        case .pdf: pdf
        case .chromium: chromium
        case .calibre: calibre
        case .libreOffice: libreOffice
        case .scan: scan
        }
    }
}
