import Foundation
import GatewayJobModel
import GatewayTestSupport
import Synchronization
import Testing

@testable import GatewayLocalConverters

/// The local converters' tests, each tool's suite one test at a time (a suite's tests start and
/// stop the same tool, and its deadlines are measured against one conversion at a time), the
/// suites beside each other.
@Suite(.timeLimit(.minutes(3))) struct LocalConverterTests {}

/// One job's directories and a request for it.
struct JobFixture {
    let directory = TemporaryDirectory("pdfgate-conv")
    var output: String { directory.file("out.pdf") }
    var work: String { directory.path + "/work" }

    init() {
        try? FileManager.default.createDirectory(atPath: directory.path + "/work", withIntermediateDirectories: true)
    }

    func request(
        _ type: JobType,
        _ source: ConversionSource,
        options: ConversionOptions = ConversionOptions(),
        timeout: Duration = .seconds(60)
    ) -> ConversionRequest {
        ConversionRequest(
            jobID: UUID(),
            type: type,
            source: source,
            options: options,
            workDirectory: work,
            outputPath: output,
            deadline: .now + timeout
        )
    }

    func file(_ path: String) -> ConversionSource {
        .file(path: path, originalFilename: (path as NSString).lastPathComponent)
    }
}

/// Runs `body` with a fresh converter and always shuts it down, so no soffice outlives a test.
func withConverter<R>(
    _ configuration: LocalConverter.Configuration = .init(),
    _ body: (LocalConverter) async throws -> R
) async throws -> R {
    let converter = try LocalConverter(configuration: configuration)
    do {
        let result = try await body(converter)
        await converter.shutdown()
        return result
    } catch {
        await converter.shutdown()
        throw error
    }
}

/// One warm converter for every test of a suite, as the gateway keeps one for every job: a
/// suite of many short jobs then starts its tool once rather than once a test. For suites whose
/// tests only convert (no start counts, kills or limits); the suite must be `.serialized`.
struct SuiteConverter: SuiteTrait, TestScoping {
    /// The converter of the suite being run.
    @TaskLocal static var current: LocalConverter?

    let configuration: LocalConverter.Configuration
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withConverter(configuration) { converter in
            try await Self.$current.withValue(converter) { try await function() }
        }
    }

    /// The converter of the suite being run; a test outside such a suite fails here.
    static func shared() throws -> LocalConverter {
        try #require(current, "the suite has no SuiteConverter trait")
    }
}

/// Runs `body` with the suite's converter (`SuiteConverter`), which outlives it.
func withSuiteConverter<R>(_ body: (LocalConverter) async throws -> R) async throws -> R {
    try await body(try SuiteConverter.shared())
}

extension Trait where Self == SuiteConverter {
    /// One converter, made with `configuration`, for all of the suite's tests.
    static func oneConverter(_ configuration: LocalConverter.Configuration = .init()) -> Self {
        SuiteConverter(configuration: configuration)
    }
}

/// Records the phases a converter reports.
final class EventLog: Sendable {
    private let events = Mutex<[ConversionEvent]>([])
    var all: [ConversionEvent] { events.withLock { $0 } }
    /// The events but the warnings about the result (a substituted font), which depend on the
    /// fonts of the machine, not on the converter's progress.
    var progress: [ConversionEvent] {
        all.filter { event in
            if case .warned = event { false } else { true }
        }
    }
    var sink: @Sendable (ConversionEvent) async -> Void { { [self] event in events.withLock { $0.append(event) } } }
}

/// Page counts measured when the fixtures were made, keyed like `office/sample.docx`.
func expectedPageCount(_ key: String) throws -> Int? {
    let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/expected-conversions.json"))
    let table = try JSONDecoder().decode([String: [String: JSONValue]].self, from: data)
    return table[key]?["page_count"]?.number.map { Int($0) }
}

/// The `JobFailure` (or other error) `body` throws, if any.
func conversionError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// Live (non-zombie) processes whose command line or environment mentions `marker`.
func liveProcesses(mentioning marker: String) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
        guard isLive(pid) else { return false }
        let texts = ["cmdline", "environ"].compactMap { try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\($0)")) }
        return texts.contains { String(decoding: $0, as: UTF8.self).contains(marker) }
    }
}

/// Live (non-zombie) members of process group `group`.
func liveMembers(ofGroup group: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { getpgid($0) == group && isLive($0) }
}

/// Live members of `group` once it has had a second to die: SIGKILL lands within moments, and a
/// sandbox's processes die with its namespace.
func membersLeft(ofGroup group: pid_t) async throws -> [pid_t] {
    var left: [pid_t] = []
    // Not thrown: the caller's expectation names the survivors.
    try? await eventually("group \(group) is gone", within: .seconds(1)) {
        left = liveMembers(ofGroup: group)
        return left.isEmpty
    }
    return left
}

private func isLive(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    return state != "Z" && state != "X"
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let (whole, attoseconds) = start.duration(to: .now).components
    return Double(whole) + Double(attoseconds) / 1e18
}
