import Foundation
import GatewayConverters
import GatewayCore
import GatewayPDF
import GatewayStore
import GatewayTestSupport
import Logging

/// (a) The same files through warm local LibreOffice slots vs a cold `soffice --convert-to`
/// per file: throughput and p50 latency of both.
func officeBenchmark(fixture: String, copies: Int, work: String) async throws {
    let work = URL(fileURLWithPath: work).standardizedFileURL.path  // soffice takes a file:// profile URL
    let ext = (fixture as NSString).pathExtension
    let inputs = work + "/inputs-\(ext)"
    try? FileManager.default.removeItem(atPath: inputs)
    try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
    let files = try (0..<copies).map { i -> String in
        let path = inputs + String(format: "/doc-%02d.", i) + ext
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return path
    }

    let converter = try LocalConverter(configuration: .init(libreOfficeSlots: 2, baseDirectory: work))
    func convert(_ file: String, _ index: Int) async throws -> Double {
        let attempt = work + "/attempt-\(ext)-\(index)"
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
    // Warm both slots: a server starts them once, not per document.
    async let warmA = convert(files[0], 1000)
    async let warmB = convert(files[1], 1001)
    _ = try await (warmA, warmB)

    var latencies: [Double] = []
    let ours = try await asyncSeconds {
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

    // The peer: one cold soffice per file, each with the same (already initialised) profile.
    let profile = "file://" + work + "/soffice-profile"
    let out = work + "/soffice-out-\(ext)"
    _ = try runBlocking(
        "soffice",
        ["-env:UserInstallation=\(profile)", "--headless", "--convert-to", "pdf", "--outdir", out, files[0]],
        environment: nil,
        stdin: nil
    )
    var peerLatencies: [Double] = []
    let peer = try seconds {
        for file in files {
            peerLatencies.append(
                try seconds {
                    let result = try runBlocking(
                        "soffice",
                        ["-env:UserInstallation=\(profile)", "--headless", "--convert-to", "pdf", "--outdir", out, file],
                        environment: nil,
                        stdin: nil
                    )
                    if result.status != 0 { throw NSError(domain: "soffice", code: Int(result.status)) }
                }
            )
        }
    }
    // The same peer two at a time, each lane with its own profile (soffice processes sharing one
    // lose jobs): what a script on two cores could do, next to our two warm slots.
    let lanes = (0..<2).map { "file://" + work + "/soffice-profile-lane-\($0)" }
    for lane in lanes {
        _ = try runBlocking(
            "soffice",
            ["-env:UserInstallation=\(lane)", "--headless", "--convert-to", "pdf", "--outdir", out, files[0]],
            environment: nil,
            stdin: nil
        )
    }
    let parallelPeer = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (laneIndex, lane) in lanes.enumerated() {
                let mine = files.enumerated().filter { $0.offset % lanes.count == laneIndex }.map(\.element)
                group.addTask {
                    for file in mine {
                        let result = try await run(
                            "soffice",
                            ["-env:UserInstallation=\(lane)", "--headless", "--convert-to", "pdf", "--outdir", out + "-lane-\(laneIndex)", file]
                        )
                        if result.status != 0 { throw NSError(domain: "soffice", code: Int(result.status)) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    emit("office.\(ext).files", Double(copies))
    emit("office.\(ext).soffice_parallel2_per_s", Double(copies) / parallelPeer)
    emit("office.\(ext).ours_per_s", Double(copies) / ours)
    emit("office.\(ext).ours_p50_s", median(latencies))
    emit("office.\(ext).soffice_per_s", Double(copies) / peer)
    emit("office.\(ext).soffice_p50_s", median(peerLatencies))
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
