import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters
@testable import GatewayPDFTools

extension LocalConverterTests {
    @Suite(.serialized) struct LibreOffice {
        static let formats = [
            "sample.docx", "sample.odt", "sample.rtf", "sample.xlsx", "sample.pptx", "sample.txt", "sample.csv", "sample.doc", "sample.xls",
            "sample.ods", "sample.ppt", "sample.odp",
        ]

        @Test func officeFormatsConvertWithTheRightPageCount() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                for name in Self.formats {
                    let job = JobFixture()
                    let events = EventLog()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office(name))), events: events.sink)
                    let pages = try await pdfinfoPageCount(job.output)
                    #expect(pages != nil && pages! > 0, "\(name)")
                    if let expected = try expectedPageCount("office/\(name)") {
                        #expect(pages == expected, "\(name)")
                    }
                    #expect(events.progress == [.entered(.converting)], "\(name)")
                    // The work directory holds no leftovers: staged input and scratch PDF are gone.
                    #expect((try? FileManager.default.contentsOfDirectory(atPath: job.work)) == [], "\(name)")
                }
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 1)
                // The profile we made names the installation's version, so LibreOffice skipped
                // its graphics self-tests (see `LibreOfficeProfile`), which leave their log there.
                let version = try #require(LibreOfficeProfile.productVersion(soffice: converter.configuration.sofficePath))
                #expect(version.split(separator: ".").count == 2)
                let files = FileManager.default.enumerator(atPath: converter.directory)?.allObjects as? [String] ?? []
                #expect(files.contains { $0.hasSuffix("user/registrymodifications.xcu") })
                #expect(!files.contains { $0.hasSuffix("GraphicsRenderTests.log") })
            }
        }

        /// What makes warm slots fast is that LibreOffice starts once and then serves; the speed
        /// itself is measured by `make bench` against a cold `soffice --convert-to`, not here.
        @Test func oneWarmSlotServesManyConversionsWithOneStart() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                for (fixture, pages) in [("sample.docx", 2), ("sample.xlsx", 1), ("sample.docx", 2), ("sample.xlsx", 1), ("sample.docx", 2)] {
                    let job = JobFixture()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office(fixture))), events: { _ in })
                    #expect(try await pdfinfoPageCount(job.output) == pages, "\(fixture)")
                }
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 1)
            }
        }

        @Test func twoSpreadsheetsInARowOnOneSlot() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                for _ in 0..<2 {
                    let job = JobFixture()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.xlsx"))), events: { _ in })
                    #expect(try await pdfinfoPageCount(job.output) == 1)
                }
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 1)
            }
        }

        @Test func twoSlotsConvertSideBySide() async throws {
            try await withConverter(.init(libreOfficeSlots: 2)) { converter in
                let names = ["sample.docx", "sample.xlsx", "sample.pptx", "sample.odt"]
                let pages = try await withThrowingTaskGroup(of: (String, Int?).self) { group in
                    for name in names {
                        group.addTask {
                            let job = JobFixture()
                            try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office(name))), events: { _ in })
                            return (name, try await pdfinfoPageCount(job.output))
                        }
                    }
                    return try await group.reduce(into: [String: Int?]()) { $0[$1.0] = $1.1 }
                }
                for name in names { #expect(pages[name] == (try expectedPageCount("office/\(name)")), "\(name)") }
                let slots = converter.libreOffice.workers.slots.slots
                #expect(slots.map(\.startCount) == [1, 1])
                // Separate instances: separate process groups and profiles.
                let groups = slots.compactMap { $0.processGroup() }
                #expect(Set(groups).count == 2)
            }
        }

        @Test func slotRestartsAfterBeingKilledFromOutside() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let slot = converter.libreOffice.workers.slots.slots[0]
                let first = JobFixture()
                try await converter.convert(first.request(.docToPDF, first.file(Fixtures.office("sample.docx"))), events: { _ in })
                let before = try #require(slot.processGroup())
                kill(-before, SIGKILL)
                try await eventually("the killed group is gone", within: .seconds(5)) { liveMembers(ofGroup: before).isEmpty }

                let second = JobFixture()
                try await converter.convert(second.request(.docToPDF, second.file(Fixtures.office("sample.odt"))), events: { _ in })
                #expect(try await pdfinfoPageCount(second.output) == 2)
                let after = try #require(slot.processGroup())
                #expect(after != before)
                #expect(slot.startCount == 2)
                #expect(try await membersLeft(ofGroup: before).isEmpty)
            }
        }

        @Test func instanceIsReplacedAfterMaxConversions() async throws {
            try await withConverter(.init(libreOfficeSlots: 1, maxConversionsPerLibreOfficeInstance: 2)) { converter in
                var groups: [pid_t] = []
                for _ in 0..<3 {
                    let job = JobFixture()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.rtf"))), events: { _ in })
                    groups.append(try #require(converter.libreOffice.workers.slots.slots[0].processGroup()))
                }
                #expect(groups[0] == groups[1])
                #expect(groups[1] != groups[2])
                #expect(try await membersLeft(ofGroup: groups[0]).isEmpty)
            }
        }

        @Test func passwordProtectedDocumentIsRejectedQuickly() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                // Warm up first, so the time limit below measures the refusal, not the start-up.
                let warm = JobFixture()
                try await converter.convert(warm.request(.docToPDF, warm.file(Fixtures.office("sample.txt"))), events: { _ in })

                let job = JobFixture()
                let start = ContinuousClock.now
                let error = await conversionError {
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("protected.docx"))), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .rejected)
                #expect(failure.code == "password_protected")
                #expect(failure.message.contains("password"))
                #expect(seconds(since: start) < 5)
                #expect(!FileManager.default.fileExists(atPath: job.output))

                // The slot is still good for the next job.
                let next = JobFixture()
                try await converter.convert(next.request(.docToPDF, next.file(Fixtures.office("sample.docx"))), events: { _ in })
                #expect(try await pdfinfoPageCount(next.output) == 2)
            }
        }

        @Test(arguments: ["random", "zip"]) func corruptDocumentIsRejected(kind: String) async throws {
            let job = JobFixture()
            let corrupt = job.directory.file("broken.docx")
            var bytes = kind == "zip" ? Array("PK\u{3}\u{4}".utf8) : []
            var generator = SeededRandom(seed: 42)
            bytes += (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: corrupt))

            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let start = ContinuousClock.now
                let error = await conversionError {
                    try await converter.convert(job.request(.docToPDF, job.file(corrupt)), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                print("corrupt docx (\(kind)) → \(failure.kind) \(failure.code): \(failure.message) in \(fmt(seconds(since: start))) s")
                #expect(failure.kind == .rejected)
                #expect(failure.code == "unreadable_document")
                #expect(failure.message.contains("broken.docx"))
            }
        }

        @Test func cancellationDuringStartUpKillsTheGroup() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let job = JobFixture()
                let request = job.request(.docToPDF, job.file(Fixtures.office("sample.docx")))
                let task = Task { try await converter.convert(request, events: { _ in }) }
                let slot = converter.libreOffice.workers.slots.slots[0]
                let started = try await until("LibreOffice's process group", within: .seconds(2)) { slot.processGroup() }
                try await eventually("LibreOffice is starting up") { ProcessProbe.cpuTime(ofGroup: started) >= .milliseconds(100) }
                let cancelled = ContinuousClock.now
                task.cancel()
                let error = await conversionError { try await task.value }
                #expect(error is CancellationError)
                #expect(seconds(since: cancelled) < 1.5)
                // SIGKILL went to the whole group at the cancel and the leader is reaped; the
                // others (a sandbox's, soffice) take moments to be torn down on a busy machine.
                #expect(try await membersLeft(ofGroup: started).isEmpty)
                #expect(slot.processGroup() == nil)
            }
        }

        @Test func deadlineDuringConversionTimesOut() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                // A deadline shorter than LibreOffice's start-up.
                let job = JobFixture()
                let start = ContinuousClock.now
                let error = await conversionError {
                    try await converter.convert(
                        job.request(.docToPDF, job.file(Fixtures.office("sample.docx")), timeout: .milliseconds(500)),
                        events: { _ in }
                    )
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.kind == .timedOut)
                #expect(failure.code == "timed_out")
                #expect(seconds(since: start) < 1.5)
                #expect(converter.libreOffice.workers.slots.slots[0].processGroup() == nil)
            }
        }
    }
}

func fmt(_ value: Double) -> String { String(format: "%.2f", value) }
