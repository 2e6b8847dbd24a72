// The measuring half of `make bench`; scripts/bench/bench.sh runs it and prints the comparisons.
//
//   pdfgate-bench inspect DIR             pool vs `pdfinfo` per file, on every PDF in DIR
//   pdfgate-bench seed STORE COUNT PDF    a library of COUNT documents (hard links of PDF)
//   pdfgate-bench library STORE           median latency of list/rename/move on that library
//   pdfgate-bench search-seed STORE QUERIES [DATABASE_URL]  index text for every document of STORE; two-word queries to QUERIES
//   pdfgate-bench office DIR WORKDIR       the office files in DIR through warm slots (sealed, unsealed) vs cold soffice
//   pdfgate-bench pipeline STORE N PDF     engine overhead per job with an instant converter
//   pdfgate-bench pipeline-indexed STORE N PDF   the same with the search indexer reading each document's text beside it
//   pdfgate-bench polling PDF WORKDIR      remote jobs of 1/5/30 s: our polling vs every second
//   pdfgate-bench fake-gotenberg PDF       a Gotenberg stand-in on 127.0.0.1 that reads any upload
//                                          and answers PDF; prints its port, runs until killed
//
// Each prints `key value` lines that bench.sh collects.
import Foundation
import GatewayAssembly
import GatewayLibrary
import GatewayLibraryModel
import GatewayPDF
import GatewayStore
import Glibc

#if canImport(Glibc)
#endif

func emit(_ key: String, _ value: Double) { print("\(key) \(String(format: "%.4f", value))") }

func seconds(_ elapsed: Duration) -> Double {
    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Wall time of a synchronous body.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    seconds(try ContinuousClock().measure(body))
}

/// Wall time of an asynchronous body.
func asyncSeconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return seconds(ContinuousClock.now - start)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Peak resident set of a process, from /proc (kB → MiB).
func peakRSS(pid: String = "self") -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Double(line.split(separator: " ")[1]) ?? 0) / 1024
    }
    return 0
}

/// Resets this process's peak RSS (VmHWM) to its current RSS, so the next `peakRSS()` is the
/// peak of what ran in between.
func resetPeakRSS() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Live children of this process whose command name starts with `prefix`.
func children(named prefix: String) -> [String] {
    let me = String(getpid())
    return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { pid in
        guard Int(pid) != nil, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let name = stat.split(separator: "(").dropFirst().first?.split(separator: ")").first ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return name.hasPrefix(prefix) && fields.count > 2 && String(fields[1]) == me
    }
}

/// Runs `pdfinfo FILE` for every file, `parallel` at a time, with posix_spawn + wait4;
/// returns the largest child's peak RSS in MiB.
func runPdfinfo(_ files: [String], parallel: Int) -> Double {
    var maxRSS = 0
    var next = 0
    var running = 0
    var devnull = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&devnull)
    posix_spawn_file_actions_addopen(&devnull, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&devnull, 2, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&devnull) }
    while next < files.count || running > 0 {
        while running < parallel && next < files.count {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("pdfinfo"), strdup(files[next]), nil]
            defer { for pointer in argv { free(pointer) } }
            if posix_spawnp(&pid, "pdfinfo", &devnull, nil, argv, environ) == 0 { running += 1 }
            next += 1
        }
        var status: Int32 = 0
        var usage = rusage()
        if wait4(-1, &status, 0, &usage) > 0 {
            running -= 1
            maxRSS = max(maxRSS, usage.ru_maxrss)
        }
    }
    return Double(maxRSS) / 1024
}

/// Inspects every file through a warm pool of 2 workers, 4 requests in flight.
func inspectAll(_ files: [String], pool: PDFInspectorPool) async throws -> (seconds: Double, pages: Int) {
    var pages = 0
    let elapsed = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var iterator = files.makeIterator()
            for _ in 0..<4 { if let file = iterator.next() { group.addTask { try await pool.inspect(path: file).pageCount } } }
            while let count = try await group.next() {
                pages += count
                if let file = iterator.next() { group.addTask { try await pool.inspect(path: file).pageCount } }
            }
        }
    }
    return (elapsed, pages)
}

/// Nine rounds of ours (each is a few tens of milliseconds, so one scheduling hiccup moves it),
/// then three of the peer; medians, so one noisy round does not decide.
func inspectBenchmark(directory: String, rounds: Int = 3, oursRounds: Int = 9) async throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pdf") }.sorted().map { directory + "/" + $0 }
    let pool = PDFInspectorPool(configuration: .init(poolSize: 2))
    // Warm the pool: starting workers is a one-time cost of a long-running server, not per file.
    _ = try await pool.inspect(path: files[0])
    _ = try await pool.inspect(path: files[1])
    var ours: [Double] = []
    var pages = 0
    for _ in 0..<oursRounds {
        let round = try await inspectAll(files, pool: pool)
        ours.append(round.seconds)
        pages = round.pages
    }
    let workerRSS = children(named: "pdfgate").map { peakRSS(pid: $0) }.max() ?? 0
    await pool.shutdown()
    var peerRSS = 0.0
    var parallel: [Double] = []
    var serial: [Double] = []
    for _ in 0..<rounds {
        parallel.append(seconds { peerRSS = max(peerRSS, runPdfinfo(files, parallel: 2)) })
        serial.append(seconds { peerRSS = max(peerRSS, runPdfinfo(files, parallel: 1)) })
    }
    emit("inspect.files", Double(files.count))
    emit("inspect.pages", Double(pages))
    emit("inspect.ours_s", median(ours))
    emit("inspect.pdfinfo_parallel2_s", median(parallel))
    emit("inspect.pdfinfo_serial_s", median(serial))
    emit("inspect.ours_parent_rss_mib", peakRSS())
    emit("inspect.ours_worker_rss_mib", workerRSS)
    emit("inspect.pdfinfo_rss_mib", peerRSS)
}

func seed(store: String, count: Int, template: String, database: DatabaseChoice = .embedded) async throws {
    let library = try await GatewayStores.open(root: store, database: database, logger: quietLogger).library
    let pool = PDFInspectorPool()
    let info = try await pool.inspect(path: template)
    await pool.shutdown()
    let elapsed = try await asyncSeconds {
        try await library.seed(owner: "bench", folderPath: "Big", count: count, template: template, info: info)
        try await library.createFolder(path: "Other", owner: "bench")
    }
    emit("seed.documents", Double(count))
    emit("seed.s", elapsed)
    emit("seed.rss_mib", peakRSS())
}

func libraryBenchmark(store: String) async throws {
    let library = try await Library.open(root: store)
    resetPeakRSS()
    var query = DocumentQuery(owner: "bench", folder: .path("Big"), sort: DocumentSort(.createdAt, descending: true), limit: 50)
    var listTimes: [Double] = []
    var ids: [UUID] = []
    for _ in 0..<200 {  // first page, then 199 pages deeper via the cursor
        var page: DocumentPage?
        listTimes.append(try await asyncSeconds { page = try await library.listDocuments(query) })
        ids += page?.documents.map(\.id) ?? []
        query.cursor = page?.nextCursor
    }
    var firstPage: [Double] = []
    query.cursor = nil
    for _ in 0..<100 { firstPage.append(try await asyncSeconds { _ = try await library.listDocuments(query) }) }
    let listRSS = peakRSS()

    resetPeakRSS()
    var renameTimes: [Double] = []
    for (i, id) in ids.prefix(500).enumerated() {
        renameTimes.append(try await asyncSeconds { try await library.updateDocument(id: id, owner: "bench", name: "Renamed \(i)") })
    }
    let renameRSS = peakRSS()
    resetPeakRSS()
    var moveTimes: [Double] = []
    for id in ids.prefix(500) {
        moveTimes.append(try await asyncSeconds { try await library.updateDocument(id: id, owner: "bench", folder: .path("Other")) })
    }
    emit("library.list_first_page_ms", median(firstPage) * 1000)
    emit("library.list_any_page_ms", median(listTimes) * 1000)
    emit("library.rename_ms", median(renameTimes) * 1000)
    emit("library.move_ms", median(moveTimes) * 1000)
    emit("library.move_rss_mib", peakRSS())
    emit("library.list_rss_mib", listRSS)
    emit("library.rename_rss_mib", renameRSS)
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "inspect" where arguments.count == 3:
    try await inspectBenchmark(directory: arguments[2])
case "seed" where arguments.count == 5 || arguments.count == 6:
    // With a DATABASE_URL, the rows in PostgreSQL.
    try await seed(
        store: arguments[2],
        count: Int(arguments[3]) ?? 0,
        template: arguments[4],
        database: arguments.count == 6 ? try DatabaseChoice(parsing: arguments[5]) : .embedded
    )
case "search-seed" where arguments.count == 4 || arguments.count == 5:
    try await searchSeed(
        store: arguments[2],
        queries: arguments[3],
        database: arguments.count == 5 ? try DatabaseChoice(parsing: arguments[4]) : .embedded
    )
case "library" where arguments.count == 3:
    try await libraryBenchmark(store: arguments[2])
case "fidelity" where arguments.count == 3:
    try await fidelityBenchmark(work: arguments[2])
case "office" where arguments.count == 4:
    try await officeBenchmark(directory: arguments[2], work: arguments[3])
case "ebook" where arguments.count == 4:
    try await ebookBenchmark(directory: arguments[2], work: arguments[3])
case "url" where arguments.count == 4:
    try await urlBenchmark(directory: arguments[2], work: arguments[3])
case "polling" where arguments.count == 4:
    try await pollingBenchmark(pdf: arguments[2], work: arguments[3])
case "page" where arguments.count == 5:
    try await pageBenchmark(base: arguments[2], token: arguments[3], folder: arguments[4])
case "fake-gotenberg" where arguments.count == 3 || arguments.count == 4:
    try await fakeGotenberg(pdf: arguments[2], delay: arguments.count == 4 ? Double(arguments[3]) ?? 0 : 0)
case "pipeline-indexed" where arguments.count == 5:
    try await pipelineBenchmark(
        store: arguments[2],
        jobs: Int(arguments[3]) ?? 200,
        pdf: arguments[4],
        prefix: "pipeline_indexed",
        indexing: true
    )
case "pipeline" where arguments.count == 5:
    try await pipelineBenchmark(store: arguments[2], jobs: Int(arguments[3]) ?? 200, pdf: arguments[4])
case "pipeline" where arguments.count == 6:
    // The same on a PostgreSQL database: every row in the database, the files in STORE.
    try await pipelineBenchmark(
        store: arguments[2],
        jobs: Int(arguments[3]) ?? 200,
        pdf: arguments[4],
        database: try DatabaseChoice(parsing: arguments[5]),
        prefix: "pipeline_pg"
    )
default:
    FileHandle.standardError.write(
        Data(
            ("usage: pdfgate-bench inspect DIR | seed STORE COUNT PDF [DATABASE_URL] | search-seed STORE QUERIES [DATABASE_URL] | library STORE | office DIR WORKDIR | fidelity WORKDIR | url DIR WORKDIR | ebook DIR WORKDIR"
                + " | pipeline STORE N PDF [DATABASE_URL] | polling PDF WORKDIR | fake-gotenberg PDF [DELAY_S] | page BASE_URL TOKEN FOLDER\n").utf8
        )
    )
    exit(2)
}
