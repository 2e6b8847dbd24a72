import Foundation
import GatewayConverters
import GatewayCore
import GatewayPDF
import GatewayStore
import GatewayTestSupport
import Logging

/// (a) A varied set of real office files (kinds and sizes: `Fixtures/office-set`) through warm
/// local LibreOffice slots, sealed and unsealed in the same run (the sandbox's cost), against a
/// cold `soffice --convert-to` per file, one at a time and in two lanes.
func officeBenchmark(directory: String, work: String) async throws {
    let work = URL(fileURLWithPath: work).standardizedFileURL.path  // soffice takes a file:// profile URL
    try? FileManager.default.removeItem(atPath: work)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasSuffix(".md") }.sorted()
        .map { URL(fileURLWithPath: directory + "/" + $0).standardizedFileURL.path }
    let sealed = try await warmSlots(files, sandbox: ConverterSandbox(), work: work + "/sealed")
    let unsealed = try await warmSlots(files, sandbox: ConverterSandbox(isolation: .none), work: work + "/unsealed")
    var pages = 0
    for index in files.indices { pages += try await pdfinfoPageCount(work + "/sealed/attempt-\(index)/out.pdf") ?? 0 }

    // The peer: one cold soffice per file, each with the same profile, initialised first.
    let out = work + "/soffice-out"
    let smallest = try files.min { try size($0) < size($1) }!
    for profile in ["soffice-profile", "soffice-profile-lane-0", "soffice-profile-lane-1"] {
        try coldSoffice(smallest, profile: work + "/" + profile, out: work + "/warm-up")
    }
    var peerLatencies: [Double] = []
    let peer = try seconds {
        for file in files { peerLatencies.append(try seconds { try coldSoffice(file, profile: work + "/soffice-profile", out: out) }) }
    }
    // The same peer two at a time, each lane with its own profile (soffice processes sharing one
    // lose jobs): what a script on two cores could do, next to our two warm slots.
    let parallelPeer = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<2 {
                let mine = files.enumerated().filter { $0.offset % 2 == lane }.map(\.element)
                group.addTask {
                    for file in mine { try coldSoffice(file, profile: work + "/soffice-profile-lane-\(lane)", out: out + "-lane-\(lane)") }
                }
            }
            try await group.waitForAll()
        }
    }
    let count = Double(files.count)
    emit("office.files", count)
    emit("office.pages", Double(pages))
    emit("office.ours_per_s", count / sealed.seconds)
    emit("office.ours_p50_s", median(sealed.latencies))
    emit("office.unsealed_per_s", count / unsealed.seconds)
    emit("office.unsealed_p50_s", median(unsealed.latencies))
    emit("office.soffice_per_s", count / peer)
    emit("office.soffice_p50_s", median(peerLatencies))
    emit("office.soffice_parallel2_per_s", count / parallelPeer)
}

/// Every file through two warm slots, two at a time (the slots are started before the clock).
private func warmSlots(_ files: [String], sandbox: ConverterSandbox, work: String) async throws -> (seconds: Double, latencies: [Double]) {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let converter = try LocalConverter(configuration: .init(libreOfficeSlots: 2, baseDirectory: work, sandbox: sandbox))
    func convert(_ file: String, _ index: Int) async throws -> Double {
        let attempt = work + "/attempt-\(index)"
        try? FileManager.default.removeItem(atPath: attempt)
        try FileManager.default.createDirectory(atPath: attempt, withIntermediateDirectories: true)
        let request = ConversionRequest(
            jobID: UUID(),
            type: .docToPDF,
            source: .file(path: file, originalFilename: (file as NSString).lastPathComponent),
            workDirectory: attempt,
            outputPath: attempt + "/out.pdf",
            deadline: .now + .seconds(120)
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
func pipelineBenchmark(store: String, jobs count: Int, pdf: String) async throws {
    let library = try Library(root: store)
    let inspector = PDFInspectorPool()
    let engine = JobEngine(
        configuration: .init(stagingDirectory: library.paths.staging, idlePoll: .milliseconds(50)),
        store: SQLiteJobStore(database: library.database),
        router: ConverterRouter(everything: PassthroughConverter(), slots: 2),
        inspector: inspector,
        filer: library,
        logger: quietLogger
    )
    let runner = Task { await engine.run() }
    _ = try await inspector.inspect(path: pdf)  // warm the inspector

    var latencies: [Double] = []
    let total = try await asyncSeconds {
        for i in 0..<count {
            let start = ContinuousClock.now
            let job = try engine.create(owner: "bench", spec: JobSpec(type: .docToPDF, originalFilename: "job-\(i).pdf"))
            try FileManager.default.copyItem(atPath: pdf, toPath: engine.inputPath(job))
            try engine.inputReceived(job.id)
            try engine.submit(job.id)
            while try engine.job(job.id)?.state.status.isTerminal == false { try await Task.sleep(for: .microseconds(200)) }
            latencies.append(seconds(ContinuousClock.now - start))
        }
    }
    runner.cancel()
    await runner.value
    await inspector.shutdown()
    emit("pipeline.jobs", Double(count))
    emit("pipeline.jobs_per_s", Double(count) / total)
    emit("pipeline.p50_ms", median(latencies) * 1000)
}

/// Per-job info logs would dominate the measurement.
let quietLogger: Logger = {
    var logger = Logger(label: "pdfgate.bench")
    logger.logLevel = .warning
    return logger
}()
