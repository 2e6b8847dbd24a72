import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters

extension LocalConverterTests {
    @Suite(.serialized) struct Calibre {
        /// Books that only convert share a converter, as jobs do: Calibre's warm worker starts
        /// once for the four formats instead of once each.
        @Suite(.oneConverter()) struct Books {
            @Test(arguments: ["sample.epub", "sample.fb2", "sample.mobi", "sample.azw3"]) func ebookConvertsWithTheRightPageCount(
                name: String
            ) async throws {
                try await withSuiteConverter { converter in
                    let job = JobFixture()
                    let request = job.request(.ebookToPDF, job.file(Fixtures.ebook(name)))
                    #expect(converter.backend(for: request) is CalibreConverter)
                    let events = EventLog()
                    try await converter.convert(request, events: events.sink)
                    let pages = try await pdfinfoPageCount(job.output)
                    #expect(pages == (try expectedPageCount("ebook/\(name)")))
                    #expect(events.progress == [.entered(.converting)])
                    #expect(!FileManager.default.fileExists(atPath: job.work + "/calibre"))
                }
            }
        }

        @Test func corruptEbookIsRejected() async throws {
            let job = JobFixture()
            let broken = job.directory.file("broken.epub")
            var generator = SeededRandom(seed: 7)
            try Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: broken))
            try await withConverter { converter in
                let error = await conversionError {
                    try await converter.convert(job.request(.ebookToPDF, job.file(broken)), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .rejected)
                #expect(failure.code == "unreadable_document")
                #expect(failure.message.contains("broken.epub"))
            }
        }

        @Test func deadlineKillsTheWholeGroup() async throws {
            try await withConverter(.init(calibreSlots: 1)) { converter in
                let job = JobFixture()
                let worker = converter.calibre.workers.slots.slots[0]
                let watcher = Task { try await until("the warm worker's process group", poll: .milliseconds(10)) { worker.processGroup() } }
                let start = ContinuousClock.now
                // A novel: a warm worker prints a small sample in under the second.
                let novel = Fixtures.root + "/ebook-set/novel.epub"
                let error = await conversionError {
                    try await converter.convert(
                        job.request(.ebookToPDF, job.file(novel), timeout: .seconds(1)),
                        events: { _ in }
                    )
                }
                let elapsed = seconds(since: start)
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .timedOut)
                #expect(failure.code == "timed_out")
                #expect(elapsed < 2, "took \(elapsed) s")
                watcher.cancel()
                let group = (try? await watcher.value) ?? 0
                #expect(group > 0, "the warm worker was running")
                #expect(try await membersLeft(ofGroup: group).isEmpty, "its whole process group is gone")
                #expect(worker.processGroup() == nil)
            }
        }

        @Test func cancellationKillsTheWholeGroupPromptly() async throws {
            try await withConverter(.init(calibreSlots: 1)) { converter in
                let job = JobFixture()
                let worker = converter.calibre.workers.slots.slots[0]
                let request = job.request(.ebookToPDF, job.file(Fixtures.ebook("sample.epub")))
                let task = Task { try await converter.convert(request, events: { _ in }) }
                // Let Calibre get going on the book (and fork its helpers).
                let running = try await until("Calibre's process group", within: .seconds(2)) { worker.processGroup() }
                let idle = ProcessProbe.cpuTime(ofGroup: running)
                try await eventually("Calibre works on the book") { ProcessProbe.cpuTime(ofGroup: running) >= idle + .milliseconds(200) }
                let cancelled = ContinuousClock.now
                task.cancel()
                let error = await conversionError { try await task.value }
                #expect(error is CancellationError)
                #expect(seconds(since: cancelled) < 1)
                #expect(try await membersLeft(ofGroup: running).isEmpty, "the worker's whole process group is gone")
            }
        }

        /// One warm worker takes book after book; one job's options do not stick to the next.
        @Test func aWarmWorkerTakesBookAfterBookWithoutOptionsCarryingOver() async throws {
            try await withConverter(.init(calibreSlots: 1)) { converter in
                func sizeOfFirstPage(_ name: String, _ options: ConversionOptions = ConversionOptions()) async throws -> (Double, Double) {
                    let job = JobFixture()
                    try await converter.convert(job.request(.ebookToPDF, job.file(Fixtures.ebook(name)), options: options), events: { _ in })
                    let size = try await PDFProbe.pageSize(job.output)
                    return (size.width, size.height)
                }
                let plain = try await sizeOfFirstPage("sample.epub")
                let landscape = try await sizeOfFirstPage("sample.fb2", ConversionOptions(paperWidth: 8.27, paperHeight: 11.69, landscape: true))
                let plainAgain = try await sizeOfFirstPage("sample.epub")
                #expect(landscape.0 > landscape.1 && abs(landscape.0 - 841.9) < 2, "\(landscape)")
                #expect(plain.0 < plain.1 && plainAgain == plain, "the next book is back on the default paper: \(plain) then \(plainAgain)")
                #expect(converter.calibre.workers.slots.slots[0].startCount == 1)
            }
        }

        @Test func aWorkerKilledMidBookLeavesTheBookToAColdCalibre() async throws {
            try await withConverter(.init(calibreSlots: 1)) { converter in
                let worker = converter.calibre.workers.slots.slots[0]
                let warmUp = JobFixture()
                try await converter.convert(warmUp.request(.ebookToPDF, warmUp.file(Fixtures.ebook("sample.epub"))), events: { _ in })
                // A long book (72 pages with tables and listings, seconds of work even warm),
                // killed once the worker is well into it; the cold Calibre then converts it whole.
                let job = JobFixture()
                let book = Fixtures.root + "/ebook-set/technical-book.epub"
                let request = job.request(.ebookToPDF, job.file(book))
                let group = try #require(worker.processGroup())
                let idle = ProcessProbe.cpuTime(ofGroup: group)
                async let conversion: Void = converter.convert(request, events: { _ in })
                try await eventually("the worker is well into the book") { ProcessProbe.cpuTime(ofGroup: group) >= idle + .milliseconds(500) }
                #expect(kill(-group, SIGKILL) == 0)
                try await conversion
                #expect(converter.calibre.workers.goesCold(request.jobID), "the cold Calibre took the book over")
                // The page count a cold `ebook-convert` makes of it (Fixtures/ebook-set/README.md).
                #expect(try await pdfinfoPageCount(job.output) == 72)
            }
        }

        /// The warm worker shortens Calibre's fixed settle wait; what it prints must still be
        /// what a cold `ebook-convert` prints: the same pages and the same text.
        @Test func aWarmWorkerPrintsWhatAColdEbookConvertPrints() async throws {
            let book = Fixtures.root + "/ebook-set/short-story.epub"
            let directory = TemporaryDirectory("pdfgate-cold-calibre")
            let cold = directory.file("cold.pdf")
            let result = try await run(
                LocalConverter.Configuration().ebookConvertPath,
                [book, cold],
                environment: ["QTWEBENGINE_DISABLE_SANDBOX": "1", "HOME": directory.path]
            )
            #expect(result.status == 0)
            try await withConverter(.init(calibreSlots: 1)) { converter in
                let job = JobFixture()
                try await converter.convert(job.request(.ebookToPDF, job.file(book)), events: { _ in })
                #expect(try await pdfinfoPageCount(job.output) == pdfinfoPageCount(cold))
                let (warmText, coldText) = (try await run("pdftotext", [job.output, "-"]).stdout, try await run("pdftotext", [cold, "-"]).stdout)
                #expect(!warmText.isEmpty && warmText == coldText)
            }
        }
    }
}
