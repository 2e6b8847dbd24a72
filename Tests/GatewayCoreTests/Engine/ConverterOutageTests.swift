import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayTestSupport
import Synchronization
import Testing

/// A converter that cannot start until it is repaired, like a tool that is not installed yet:
/// each attempt and each re-check says why, until `repair()`.
final class UnstartableConverter: Converter {
    let name = "unstartable"
    static let problem = JobFailure.converterCannotStart("frobnicator is not installed; install Debian's frobnicator")
    private let broken = Mutex(true)
    private let counts = Mutex((calls: 0, checks: 0))
    var calls: Int { counts.withLock { $0.calls } }
    var checks: Int { counts.withLock { $0.checks } }

    func repair() { broken.withLock { $0 = false } }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        counts.withLock { $0.calls += 1 }
        if broken.withLock({ $0 }) { throw Self.problem }
        try await PassthroughConverter().convert(request, events: events)
    }

    func isReady() async -> Bool { !broken.withLock { $0 } }

    func startProblem(for type: JobType) async -> JobFailure? {
        counts.withLock { $0.checks += 1 }
        return broken.withLock { $0 } ? Self.problem : nil
    }
}

/// A converter that cannot start fails its job at once with the cause, takes its job
/// type out of service on this node until a re-check passes, and is never retried meanwhile.
@Suite("Converters that cannot start")
struct ConverterOutageTests {
    @Test func theJobFailsAtOnceAndTheTypeComesBackWhenTheCheckPasses() async throws {
        let converter = UnstartableConverter()
        let engine = try await EngineFixture(converter, timeout: .seconds(120), converterRecheck: .milliseconds(100))
        // One engine run for the whole test: an engine runs once.
        let runner = Task { await engine.engine.run() }
        defer { runner.cancel() }
        let started = ContinuousClock.now
        let failed = try await engine.wait(for: try engine.submit().id, limit: .seconds(20)) { $0.state.status.isTerminal }
        #expect(failed.state.status == .failed)
        #expect(failed.state.failure == UnstartableConverter.problem, "the job says the real cause")
        #expect(failed.state.attempts == 1 && converter.calls == 1, "never retried: \(failed.state.attempts) attempts")
        #expect(ContinuousClock.now - started < .seconds(10), "failed within seconds, not at its deadline")
        #expect(engine.engine.outages.failure(for: .docToPDF) == UnstartableConverter.problem)

        // While it is out, a job of its type fails without reaching the converter again.
        let second = try await engine.wait(for: try engine.submit().id, limit: .seconds(20)) { $0.state.status.isTerminal }
        #expect(second.state.status == .failed && second.state.failure?.code == JobFailure.cannotStartCode)
        #expect(converter.calls == 1, "the converter was tried again while known not to start")

        // Repaired: the periodic re-check puts the type back, and jobs run again.
        converter.repair()
        try await eventually("the re-check takes the type back into service", within: .seconds(10)) { engine.engine.outages.current.isEmpty }
        #expect(converter.checks >= 1)
        let third = try await engine.wait(for: try engine.submit().id, limit: .seconds(20)) { $0.state.status.isTerminal }
        #expect(third.state.status == .succeeded, "\(String(describing: third.state.failure))")
        await #expect(try engine.documents().count == 1, "the failed jobs filed nothing")
    }

    @Test func sharingTheStoreTheNodeLeavesTheTypesJobsToOthers() async throws {
        let converter = UnstartableConverter()
        let engine = try await EngineFixture(converter, converterRecheck: .seconds(3600), sharesStore: true)
        engine.engine.outages.mark(.docToPDF, UnstartableConverter.problem)
        let job = try await engine.submit()
        let runner = Task { await engine.engine.run() }
        try await keepsHolding("another node may run it: this one must not claim it", for: .milliseconds(500)) {
            try await engine.engine.job(job.id)?.state.status == .queued
        }
        #expect(converter.calls == 0)
        engine.engine.outages.clear(.docToPDF)
        converter.repair()
        let done = try await engine.wait(for: job.id, limit: .seconds(20)) { $0.state.status.isTerminal }
        runner.cancel()
        await runner.value
        #expect(done.state.status == .succeeded, "\(String(describing: done.state.failure))")
    }

    @Test(arguments: [false, true])
    func intakeRefusesAnOutTypeOnlyWhenNoOtherNodeCanRunIt(sharesStore: Bool) async throws {
        let engine = try await EngineFixture(UnstartableConverter(), sharesStore: sharesStore)
        engine.engine.outages.mark(.docToPDF, UnstartableConverter.problem)
        let intake = engine.intake()
        let office = JobSpec(type: .docToPDF, originalFilename: "report.docx")
        let merge = JobSpec(type: .pdfToPDF, inputs: [.file("a.docx"), .file("b.epub")])
        for spec in [office, merge] {
            var refusal: IntakeError?
            do {
                try await intake.check(spec, owner: "alice", files: spec.inputs?.count ?? 0)
            } catch let error as IntakeError {
                refusal = error
            }
            if sharesStore {
                #expect(refusal == nil, "another node may run \(spec.type.rawValue): \(String(describing: refusal))")
            } else {
                #expect(refusal?.code == JobFailure.cannotStartCode, "\(String(describing: refusal))")
                #expect(refusal?.message.contains("frobnicator is not installed") == true, "\(String(describing: refusal))")
            }
        }
        // Another type is not affected.
        try await intake.check(JobSpec(type: .ebookToPDF, originalFilename: "book.epub"), owner: "alice")
    }

    @Test func transientFailuresKeepTheirRetries() async throws {
        let crash = JobFailure(.transient, code: "converter_crashed", "crashed")
        let converter = ScriptedConverter([.fail(crash)])
        let engine = try await EngineFixture(converter)
        let done = try await engine.runUntilDone(try engine.submit().id)
        #expect(done.state.status == .succeeded && done.state.attempts == 2)
        #expect(engine.engine.outages.current.isEmpty, "a crash is not an outage")
    }
}
