import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayJobModel
import GatewayLibrary
import GatewayLocalConverters
import GatewayPDF
import GatewaySandbox
import GatewayStore
import GatewayTestSupport
import GatewayURLSecurity
import Logging

/// (a) A varied set of real office files (kinds and sizes: `Fixtures/office-set`) through warm
/// local LibreOffice slots, sealed and unsealed in the same run (the sandbox's cost), against a
/// cold `soffice --convert-to` per file, one at a time and in two lanes.
func officeBenchmark(directory: String, work: String) async throws {
    let work = URL(fileURLWithPath: work).standardizedFileURL.path  // soffice takes a file:// profile URL
    try? FileManager.default.removeItem(atPath: work)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let files = try inputs(in: directory)
    let sealed = try await twoWarmSlots(
        files,
        .docToPDF,
        .init(libreOfficeSlots: 2, baseDirectory: work, sandbox: ConverterSandbox()),
        work: work + "/sealed"
    )
    let unsealed = try await twoWarmSlots(
        files,
        .docToPDF,
        .init(libreOfficeSlots: 2, baseDirectory: work, sandbox: ConverterSandbox(isolation: .none)),
        work: work + "/unsealed"
    )
    var pages = 0
    for index in files.indices { pages += try await pdfinfoPageCount(work + "/sealed/attempt-\(index)/out.pdf") ?? 0 }

    // The peer: one cold soffice per file, each lane with its own profile (soffice processes
    // sharing one lose jobs), initialised first.
    let smallest = try files.min { try size($0) < size($1) }!
    for lane in 0..<2 { try coldSoffice(smallest, profile: work + "/soffice-profile-\(lane)", out: work + "/warm-up") }
    let peer = try await coldLanes(files, lanes: 1) { file, lane in
        try coldSoffice(file, profile: work + "/soffice-profile-\(lane)", out: work + "/out")
    }
    let parallelPeer = try await coldLanes(files, lanes: 2) { file, lane in
        try coldSoffice(file, profile: work + "/soffice-profile-\(lane)", out: work + "/out-\(lane)")
    }
    let count = Double(files.count)
    emit("office.files", count)
    emit("office.pages", Double(pages))
    emit("office.ours_per_s", count / sealed.seconds)
    emit("office.ours_p50_s", median(sealed.latencies))
    emit("office.unsealed_per_s", count / unsealed.seconds)
    emit("office.unsealed_p50_s", median(unsealed.latencies))
    emit("office.soffice_per_s", count / peer.seconds)
    emit("office.soffice_p50_s", median(peer.latencies))
    emit("office.soffice_parallel2_per_s", count / parallelPeer.seconds)
}

/// (a') A varied set of ebooks (`Fixtures/ebook-set`: a short story, a novel, a picture book, a
/// technical book, an anthology) through warm Calibre workers, sealed and unsealed, against a
/// cold `ebook-convert` per book, one at a time and in two lanes.
func ebookBenchmark(directory: String, work: String) async throws {
    try? FileManager.default.removeItem(atPath: work)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let files = try inputs(in: directory)
    let sealed = try await twoWarmSlots(
        files,
        .ebookToPDF,
        .init(calibreSlots: 2, baseDirectory: work, sandbox: ConverterSandbox()),
        work: work + "/sealed"
    )
    let unsealed = try await twoWarmSlots(
        files,
        .ebookToPDF,
        .init(calibreSlots: 2, baseDirectory: work, sandbox: ConverterSandbox(isolation: .none)),
        work: work + "/unsealed"
    )
    var pages = 0
    for index in files.indices { pages += try await pdfinfoPageCount(work + "/sealed/attempt-\(index)/out.pdf") ?? 0 }

    @Sendable func ebookConvert(_ file: String, _ out: String) throws {
        let result = try runBlocking("ebook-convert", [file, out], environment: ["QTWEBENGINE_DISABLE_SANDBOX": "1"], stdin: nil)
        if result.status != 0 { throw NSError(domain: "ebook-convert", code: Int(result.status)) }
    }
    try ebookConvert(files[0], work + "/warm-up.pdf")  // the page cache, as ours had it
    let peer = try await coldLanes(files, lanes: 1) { file, lane in try ebookConvert(file, work + "/cold-\(lane).pdf") }
    let parallelPeer = try await coldLanes(files, lanes: 2) { file, lane in try ebookConvert(file, work + "/cold-\(lane).pdf") }
    let count = Double(files.count)
    emit("ebook.files", count)
    emit("ebook.pages", Double(pages))
    emit("ebook.ours_per_s", count / sealed.seconds)
    emit("ebook.ours_p50_s", median(sealed.latencies))
    emit("ebook.unsealed_per_s", count / unsealed.seconds)
    emit("ebook.unsealed_p50_s", median(unsealed.latencies))
    emit("ebook.cold_per_s", count / peer.seconds)
    emit("ebook.cold_p50_s", median(peer.latencies))
    emit("ebook.cold_parallel2_per_s", count / parallelPeer.seconds)
}

/// The benchmark inputs of a fixture set: every file but its README, by name.
private func inputs(in directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasSuffix(".md") }.sorted()
        .map { URL(fileURLWithPath: directory + "/" + $0).standardizedFileURL.path }
}

/// Every file through two warm slots, two at a time (the slots are started before the clock).
private func twoWarmSlots(
    _ files: [String],
    _ type: JobType,
    _ configuration: LocalConverter.Configuration,
    work: String
) async throws -> (seconds: Double, latencies: [Double]) {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let converter = try LocalConverter(configuration: configuration)
    func convert(_ file: String, _ index: Int) async throws -> Double {
        let attempt = work + "/attempt-\(index)"
        try? FileManager.default.removeItem(atPath: attempt)
        try FileManager.default.createDirectory(atPath: attempt, withIntermediateDirectories: true)
        let request = ConversionRequest(
            jobID: UUID(),
            type: type,
            source: .file(path: file, originalFilename: (file as NSString).lastPathComponent),
            workDirectory: attempt,
            outputPath: attempt + "/out.pdf",
            deadline: .now + .seconds(300)
        )
        return try await asyncSeconds { try await converter.convert(request, events: { _ in }) }
    }
    // Warm both slots with the smallest file: a server starts them once, not per document.
    let smallest = try files.min { try size($0) < size($1) }!
    async let warmA = convert(smallest, 1000)
    async let warmB = convert(smallest, 1001)
    _ = try await (warmA, warmB)

    var latencies: [Double] = []
    let total = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Double.self) { group in
            var next = 0
            for _ in 0..<2 where next < files.count {
                let (file, index) = (files[next], next)
                group.addTask { try await convert(file, index) }
                next += 1
            }
            while let latency = try await group.next() {
                latencies.append(latency)
                if next < files.count {
                    let (file, index) = (files[next], next)
                    group.addTask { try await convert(file, index) }
                    next += 1
                }
            }
        }
    }
    await converter.shutdown()
    return (total, latencies)
}

/// A cold tool per file, in `lanes` lanes side by side (file i in lane i % lanes): the total
/// time and each file's.
private func coldLanes(
    _ files: [String],
    lanes: Int,
    _ run: @escaping @Sendable (_ file: String, _ lane: Int) throws -> Void
) async throws -> (seconds: Double, latencies: [Double]) {
    var latencies: [Double] = []
    let total = try await asyncSeconds {
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for lane in 0..<lanes {
                let mine = files.enumerated().filter { $0.offset % lanes == lane }.map(\.element)
                group.addTask { try mine.map { file in try seconds { try run(file, lane) } } }
            }
            for try await times in group { latencies += times }
        }
    }
    return (total, latencies)
}

/// `soffice --convert-to pdf` of one file with `profile`, as a script would run it.
private func coldSoffice(_ file: String, profile: String, out: String) throws {
    let result = try runBlocking(
        "soffice",
        ["-env:UserInstallation=file://\(profile)", "--headless", "--convert-to", "pdf", "--outdir", out, file],
        environment: nil,
        stdin: nil
    )
    if result.status != 0 { throw NSError(domain: "soffice", code: Int(result.status)) }
}

private func size(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// (c) Pipeline overhead per job with an instant converter: create, stage, submit, convert
/// (a copy), inspect, file, succeed — the engine's own cost.
func pipelineBenchmark(
    store: String,
    jobs count: Int,
    pdf: String,
    database: DatabaseChoice = .embedded,
    prefix: String = "pipeline",
    indexing: Bool = false
)
    async throws
{
    let stores = try await GatewayStores.open(root: store, database: database, logger: quietLogger)
    let library = stores.library
    let inspector = PDFInspectorPool()
    let engine = JobEngine(
        configuration: .init(idlePoll: .milliseconds(50), sharesStore: stores.shared),
        store: stores.jobs,
        staging: library.staging,
        router: ConverterRouter(everything: PassthroughConverter(), slots: 2),
        inspector: inspector,
        filer: library,
        logger: quietLogger
    )
    let intake = JobIntake(engine: engine, filer: library, inspector: inspector, urlCheck: URLCheck(), limits: .none, idempotency: nil)
    let runner = Task { await engine.run() }
    // As `serve` runs it: beside the engine, reading each filed document's text as it comes.
    let textReader = PDFInspectorPool(configuration: .init(poolSize: 1, niceness: 10))
    let indexer = indexing ? SearchIndexer(library: library, index: library.searchIndex, inspector: textReader, logger: quietLogger) : nil
    let indexerRun = indexer.map { indexer in Task { await indexer.run() } }
    _ = try await inspector.inspect(path: pdf)  // warm the inspector

    var latencies: [Double] = []
    let total = try await asyncSeconds {
        for i in 0..<count {
            let start = ContinuousClock.now
            // No extension: the intake lets LibreOffice tell by content, and the passthrough takes the PDF.
            let spec = JobSpec(type: .docToPDF, originalFilename: "job-\(i)")
            let job = try await intake.create(spec, owner: "bench", inputs: [.copying(pdf)]).job
            _ = try await engine.ended(job.id)  // told by the engine, not polled: polling would load the database measured
            latencies.append(seconds(ContinuousClock.now - start))
        }
    }
    runner.cancel()
    await runner.value
    if let indexer, let indexerRun {
        // The text of every filed document is in before the inspector goes.
        try await indexer.indexPending()
        indexerRun.cancel()
        await indexerRun.value
        emit("\(prefix).indexed", Double(try await library.searchIndex.status(owner: "bench").ready))
    }
    await textReader.shutdown()
    await inspector.shutdown()
    emit("\(prefix).jobs", Double(count))
    emit("\(prefix).jobs_per_s", Double(count) / total)
    emit("\(prefix).p50_ms", median(latencies) * 1000)
}

/// Per-job info logs would dominate the measurement.
let quietLogger: Logger = {
    var logger = Logger(label: "pdfgate.bench")
    logger.logLevel = .warning
    return logger
}()
