import Foundation
import GatewayCore
import GatewayPDF
import GatewayTestSupport
import Testing

/// The pool's process management, on well-behaved files.
@Suite(.timeLimit(.minutes(2))) struct PoolBehaviourTests {
    @Test func aNicedPoolsWorkersRunAtItsNiceness() async throws {
        try await PDFInspectorPool(configuration: .init(poolSize: 1, niceness: 7)).using { pool in
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
            let pid = try #require(pool.workerPIDs().idle.first)
            // Linux's niceness is per thread: the worker's reading thread (the one that set it,
            // the one Poppler runs on) has it. /proc/…/stat: the 19th field, after the command.
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
            let nices = try tasks.map { task in
                let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)
                return stat.split(separator: ")").last?.split(separator: " ").dropFirst(16).first.map(String.init) ?? ""
            }
            #expect(nices.contains("7"), "\(nices)")
        }
    }

    @Test func fiftyConcurrentInspectionsThroughTwoWorkers() async throws {
        try await makePool(poolSize: 2).using { pool in
            let files = ["one-page.pdf", "many-pages.pdf", "no-metadata.pdf", "linearized.pdf", "pdfa.pdf"]
            var expected: [String: Int] = [:]
            for file in files {
                let pages = try pdfinfo(Fixtures.pdf(file))["Pages"].flatMap { Int($0) }
                let count = try #require(pages)
                expected[file] = count
            }

            let results = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for index in 0..<50 {
                    let file = files[index % files.count]
                    group.addTask { (file, try await pool.inspect(path: Fixtures.pdf(file)).pageCount) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 50)
            for (file, pages) in results {
                #expect(pages == expected[file], "\(file)")
            }
            #expect(pool.workerPIDs().idle.count <= 2)
        }
    }

    @Test func workerKilledFromOutsideIsReplaced() async throws {
        try await makePool(poolSize: 1).using { pool in
            _ = try await pool.inspect(path: Fixtures.pdf("one-page.pdf"))
            let first = try #require(pool.workerPIDs().idle.first)
            kill(first, SIGKILL)
            try await eventually("the killed worker is dead", within: .seconds(5)) { !ProcessProbe.isLive(first) }

            let info = try await pool.inspect(path: Fixtures.pdf("one-page.pdf"))
            #expect(info.pageCount == 1)
            let second = try #require(pool.workerPIDs().idle.first)
            #expect(second != first)
        }
    }

    /// The kill and the next file race: the file may reach the dying worker before its exit is
    /// seen. The pool tries a fresh worker before blaming the file.
    @Test func aWorkerKilledJustBeforeAFileDoesNotFailTheFile() async throws {
        try await makePool(poolSize: 1).using { pool in
            for _ in 0..<5 {
                _ = try await pool.inspect(path: Fixtures.pdf("one-page.pdf"))
                let idle = try #require(pool.workerPIDs().idle.first)
                kill(idle, SIGKILL)
                #expect(try await pool.inspect(path: Fixtures.pdf("many-pages.pdf")).pageCount > 1)
                #expect(pool.workerPIDs().idle.first != idle)
            }
        }
    }

    @Test func missingWorkerExecutableIsReported() async {
        let pool = PDFInspectorPool(configuration: .init(executable: "/nonexistent/pdfgate"))
        let error = await inspectionError { try await pool.inspect(path: Fixtures.pdf("one-page.pdf")) }
        #expect(error?.kind == .inspectorUnavailable)
        #expect(error?.message.contains("PDFGATE_EXECUTABLE") == true)
    }

    @Test func shutdownEndsWorkersAndRefusesWork() async throws {
        let pool = makePool(poolSize: 2)
        _ = try await pool.inspect(path: Fixtures.pdf("one-page.pdf"))
        let pids = pool.workerPIDs().idle
        #expect(!pids.isEmpty)
        await pool.shutdown()
        for pid in pids {
            // Reaped, so the pid no longer names our child.
            #expect(kill(pid, 0) == -1)
        }
        let error = await inspectionError { try await pool.inspect(path: Fixtures.pdf("one-page.pdf")) }
        #expect(error?.kind == .inspectorUnavailable)
    }

    @Test func workersAreReusedAcrossFiles() async throws {
        try await makePool(poolSize: 1).using { pool in
            _ = try await pool.inspect(path: Fixtures.pdf("one-page.pdf"))
            let first = pool.workerPIDs().idle
            _ = try await pool.inspect(path: Fixtures.pdf("many-pages.pdf"))
            _ = await inspectionError { try await pool.inspect(path: Fixtures.pdf("not-a-pdf.pdf")) }
            #expect(pool.workerPIDs().idle == first)
        }
    }

    @Test func theWorkerIsPdfgateItself() {
        #expect(HelperExecutable.locate(environment: ["PDFGATE_EXECUTABLE": "/opt/pdfgate"]) == "/opt/pdfgate")
        // From the test bundle: the pdfgate product built beside it.
        let found = HelperExecutable.locate(environment: [:])
        #expect(found?.hasSuffix("/pdfgate") == true)
        #expect(found.map { FileManager.default.isExecutableFile(atPath: $0) } == true)
    }

    /// Not a test of correctness: prints the per-file cost through the pool, for the record.
    @Test func throughputOfSmallFiles() async throws {
        try await makePool(poolSize: 1).using { pool in
            let path = Fixtures.pdf("one-page.pdf")
            _ = try await pool.inspect(path: path)
            let count = 200
            let (_, elapsed) = try await timed {
                for _ in 0..<count { _ = try await pool.inspect(path: path) }
            }
            let perFile =
                Double(elapsed.components.attoseconds) / 1e15 / Double(count)
                + Double(elapsed.components.seconds) * 1000 / Double(count)
            print("pdfgate: \(count) sequential inspections of one-page.pdf through one worker: \(String(format: "%.3f", perFile)) ms/file")
            #expect(perFile < 50)
        }
    }
}
