import Foundation
import GatewayCore
import GatewayTestSupport
import Testing

@testable import GatewayConverters

extension LocalConverterTests {
    @Suite struct Calibre {
        @Test(arguments: ["sample.epub", "sample.fb2", "sample.mobi", "sample.azw3"]) func ebookConvertsWithTheRightPageCount(
            name: String
        ) async throws {
            try await withConverter { converter in
                let job = JobFixture()
                let request = job.request(.ebookToPDF, job.file(Fixtures.ebook(name)))
                #expect(converter.backend(for: request) is CalibreConverter)
                let events = EventLog()
                try await converter.convert(request, events: events.sink)
                let pages = try await pdfinfoPageCount(job.output)
                #expect(pages == (try expectedPageCount("ebook/\(name)")))
                #expect(events.all == [.entered(.converting)])
                #expect(!FileManager.default.fileExists(atPath: job.work + "/calibre"))
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
            try await withConverter { converter in
                let job = JobFixture()
                let start = ContinuousClock.now
                let error = await conversionError {
                    try await converter.convert(
                        job.request(.ebookToPDF, job.file(Fixtures.ebook("sample.epub")), timeout: .seconds(1)),
                        events: { _ in }
                    )
                }
                let elapsed = seconds(since: start)
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .timedOut)
                #expect(failure.code == "timed_out")
                #expect(elapsed < 2, "took \(elapsed) s")
                #expect(liveProcesses(mentioning: job.work).isEmpty)
            }
        }

        @Test func cancellationKillsTheWholeGroupPromptly() async throws {
            try await withConverter { converter in
                let job = JobFixture()
                let request = job.request(.ebookToPDF, job.file(Fixtures.ebook("sample.epub")))
                let task = Task { try await converter.convert(request, events: { _ in }) }
                // Let Calibre get going (and fork its helpers).
                var running: [pid_t] = []
                for _ in 0..<100 where running.count < 1 {
                    try await Task.sleep(for: .milliseconds(20))
                    running = liveProcesses(mentioning: job.work)
                }
                #expect(!running.isEmpty)
                try await Task.sleep(for: .milliseconds(500))
                let cancelled = ContinuousClock.now
                task.cancel()
                let error = await conversionError { try await task.value }
                #expect(error is CancellationError)
                #expect(seconds(since: cancelled) < 1)
                #expect(liveProcesses(mentioning: job.work).isEmpty)
            }
        }
    }
}
