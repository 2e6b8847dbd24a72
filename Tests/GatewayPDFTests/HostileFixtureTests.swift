import Foundation
import GatewayLibraryModel
import GatewayPDF
import GatewayTestSupport
import Testing

/// PDFs built to hang or exhaust Poppler: the pool must bound them and keep working.
/// Serialized so the wall-clock assertions do not compete for the CPU with each other.
@Suite(.serialized, .timeLimit(.minutes(2))) struct HostileFixtureTests {
    @Test func slowRenderTimesOutAndPoolRecovers() async throws {
        try await makePool(poolSize: 1, timeout: .seconds(2)).using { pool in
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
    }

    /// A 30000×30000 RGB image (2.7 GB decoded) in 5 KB. Poppler's cairo backend, which renders
    /// our thumbnails, declines to decode it at thumbnail scale (only the Splash backend, as in
    /// `pdftoppm`, grinds through it for about a minute): the inspection succeeds at once with the
    /// page drawn around the image, under a 512 MiB cap. (`memoryCapBecomesResourceLimit` shows
    /// what the cap does to a render that does need the memory.)
    @Test func decompressionBombIsInspectedQuicklyWithinTheCap() async throws {
        try await makePool(poolSize: 1, timeout: .seconds(30), memoryLimitBytes: 512 << 20).using { pool in
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
            let info = try outcome.get()
            #expect(info.pageCount == 1 && info.title == "Hostile: decompression bomb")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("t.png").path), "the thumbnail was drawn")
            #expect(elapsed < .seconds(10), "\(elapsed)")
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
        }
    }

    /// A thumbnail that cannot fit under the cap: the worker's allocation fails, and the caller
    /// hears about the memory cap rather than a broken file. The page is four times as tall as
    /// it is wide, so the widest thumbnail is a 4096 × 16384 surface (256 MiB) on top of the
    /// worker's own few hundred MiB of address space: over the cap whatever the worker's arenas
    /// happen to reserve (an A4 page's 87 MiB surface fitted on some runs and not on others).
    @Test func memoryCapBecomesResourceLimit() async throws {
        try await makePool(poolSize: 1, timeout: .seconds(30), memoryLimitBytes: 360 << 20).using { pool in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let tall = directory.appendingPathComponent("tall.pdf").path
            try Self.onePagePDF(width: 150, height: 600).write(to: URL(fileURLWithPath: tall))

            let error = await inspectionError {
                try await pool.inspect(
                    path: tall,
                    thumbnail: ThumbnailRequest(outputPath: directory.appendingPathComponent("t.png").path, width: 4096)
                )
            }
            print("pdfgate: 4096 px thumbnail of a 1:4 page under a 360 MiB cap → \(error.map { "\($0.kind): \($0.message)" } ?? "no error")")
            #expect(error?.kind == .resourceLimit)
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
        }
    }

    @Test func workerCrashMidInspectionIsReportedAndReplaced() async throws {
        try await makePool(poolSize: 1, timeout: .seconds(60)).using { pool in
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
            let pid = try await until("a worker busy with the slow page", within: .seconds(2)) { pool.workerPIDs().busy.first }
            try await eventually("the worker is rendering") { ProcessProbe.cpuTime(of: pid) ?? .zero >= .milliseconds(100) }
            kill(pid, SIGSEGV)

            let error = await call.value
            #expect(error?.kind == .resourceLimit)
            #expect(error?.message.contains("SIGSEGV") == true, "\(error?.message ?? "")")
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
            #expect(pool.workerPIDs().idle.first != pid)
        }
    }

    /// Arrays nested 100,000 deep in the Info dictionary, and a page tree whose branch lists its
    /// own parent: Poppler recovers from both. The inspection succeeds with pdfinfo's page count
    /// and a thumbnail, well within the limit, and the pool goes on.
    @Test(arguments: ["hostile-deep-nesting.pdf", "hostile-page-tree-loop.pdf"])
    func malformedStructureIsInspectedLikePdfinfoReadsIt(file: String) async throws {
        try await makePool(poolSize: 1, timeout: .seconds(10)).using { pool in
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
            let info = try outcome.get()
            #expect(info.pageCount == (try await pdfinfoPageCount(Fixtures.pdf(file))))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("t.png").path), "the thumbnail was drawn")
            #expect(elapsed < .seconds(5), "\(elapsed)")
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
        }
    }

    @Test func cancellationKillsTheWorkerForThatCall() async throws {
        try await makePool(poolSize: 1, timeout: .seconds(60)).using { pool in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let output = directory.appendingPathComponent("t.png").path

            let task = Task {
                try await pool.inspect(
                    path: Fixtures.pdf("hostile-slow-render.pdf"),
                    thumbnail: ThumbnailRequest(outputPath: output, width: 200)
                )
            }
            let pid = try await until("a worker busy with the slow page", within: .seconds(5)) { pool.workerPIDs().busy.first }
            try await eventually("the worker is rendering") { ProcessProbe.cpuTime(of: pid) ?? .zero >= .milliseconds(100) }
            let (result, elapsed) = await timed {
                task.cancel()
                return await task.result
            }
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(elapsed < .seconds(5))
            #expect(try await pool.inspect(path: Fixtures.pdf("one-page.pdf")).pageCount == 1)
        }
    }

    /// A minimal valid one-page PDF of the given size in points (a black square on it).
    static func onePagePDF(width: Int, height: Int) -> Data {
        let content = "0 0 0 rg 10 10 50 50 re f"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 4 0 R >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
        ]
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { text += String(format: "%010d 00000 n \n", offset) }
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(text.utf8)
    }
}
