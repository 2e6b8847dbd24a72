import Foundation
import GatewayCore
import GatewayPDF
import Testing

/// PDFs built to hang or exhaust Poppler: the pool must bound them and keep working.
/// Serialized so the wall-clock assertions do not compete for the CPU with each other.
@Suite(.serialized, .timeLimit(.minutes(2))) struct HostileFixtureTests {
    @Test func slowRenderTimesOutAndPoolRecovers() async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(2))
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let (error, elapsed) = await timed {
            await inspectionError {
                try await pool.inspect(
                    path: Fixtures.pdf("hostile-slow-render.pdf"),
                    thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 200)
                )
            }
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.message.contains("2 s") == true)
        #expect(elapsed < .seconds(10))
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
    }

    /// Poppler's cairo backend declines to decode the 60000×60000 image at thumbnail scale (only
    /// the Splash backend, as in `pdftoppm`, grinds through it for about a minute), so success is
    /// as acceptable here as a refusal: what matters is that it ends, in bounds.
    @Test func decompressionBombEndsInBounds() async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(30), memoryLimitBytes: 512 << 20)
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let (outcome, elapsed) = await timed {
            await inspectionOutcome {
                try await pool.inspect(
                    path: Fixtures.pdf("hostile-bomb.pdf"),
                    thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 200)
                )
            }
        }
        print("pdfgate: hostile-bomb.pdf → \(outcome) in \(elapsed)")
        switch outcome {
        case .success(let info): #expect(info.pageCount == 1)
        case .failure(let error): #expect([.resourceLimit, .damaged, .timedOut].contains((error as? InspectionError)?.kind))
        }
        #expect(elapsed < .seconds(40))
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
    }

    /// A thumbnail that cannot fit under the cap: the worker's allocation fails, and the caller
    /// hears about the memory cap rather than a broken file.
    @Test func memoryCapBecomesResourceLimit() async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(30), memoryLimitBytes: 160 << 20)
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let error = await inspectionError {
            try await pool.inspect(
                path: Fixtures.pdf("one-page.pdf"),
                thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 4096)
            )
        }
        print("pdfgate: 4096 px thumbnail under a 160 MiB cap → \(error.map { "\($0.kind): \($0.message)" } ?? "no error")")
        #expect(error?.kind == .resourceLimit)
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
    }

    @Test func workerCrashMidInspectionIsReportedAndReplaced() async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(60))
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let call = Task {
            await inspectionError {
                try await pool.inspect(
                    path: Fixtures.pdf("hostile-slow-render.pdf"),
                    thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 200)
                )
            }
        }
        var busy: pid_t?
        for _ in 0..<100 where busy == nil {
            try await Task.sleep(for: .milliseconds(20))
            busy = pool.workerPIDs().busy.first
        }
        let pid = try #require(busy)
        try await Task.sleep(for: .milliseconds(200))
        kill(pid, SIGSEGV)

        let error = await call.value
        #expect(error?.kind == .resourceLimit)
        #expect(error?.message.contains("SIGSEGV") == true, "\(error?.message ?? "")")
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
        #expect(pool.workerPIDs().idle.first != pid)
    }

    @Test(arguments: ["hostile-deep-nesting.pdf", "hostile-page-tree-loop.pdf"])
    func malformedStructureEndsWithinTheLimit(file: String) async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(10))
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let (outcome, elapsed) = await timed {
            await inspectionOutcome {
                try await pool.inspect(
                    path: Fixtures.pdf(file),
                    thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 200)
                )
            }
        }
        print("pdfgate: \(file) → \(outcome) in \(elapsed)")
        if case .failure(let error) = outcome {
            #expect(error is InspectionError)
        }
        #expect(elapsed < .seconds(20))
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
    }

    @Test func cancellationKillsTheWorkerForThatCall() async throws {
        let pool = makePool(poolSize: 1, timeout: .seconds(60))
        defer { Task { await pool.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("t.png").path

        let task = Task {
            try await pool.inspect(
                path: Fixtures.pdf("hostile-slow-render.pdf"),
                thumbnail: ThumbnailRequest(outputPath: output, width: 200)
            )
        }
        try await Task.sleep(for: .milliseconds(500))
        let (result, elapsed) = await timed {
            task.cancel()
            return await task.result
        }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(elapsed < .seconds(5))
        #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
    }
}
