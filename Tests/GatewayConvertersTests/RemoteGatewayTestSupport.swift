import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayTestSupport
import Testing

// Helpers for the HTTP backend tests (Gotenberg, remote gateway). Names are prefixed so they
// never collide with the local-converter test helpers in the same target.

/// Transport settings for tests: never a proxy (tests only ever talk to 127.0.0.1), quick connects.
func httpTestTransport(lowSpeed: HTTPClientConfiguration.LowSpeedLimit? = nil) -> HTTPClientConfiguration {
    HTTPClientConfiguration(connectTimeout: .seconds(2), lowSpeedLimit: lowSpeed, proxy: .direct)
}

/// The events a converter reported, in order.
final class HTTPBackendEvents: Sendable {
    private let events = Locked<[ConversionEvent]>([])
    var all: [ConversionEvent] { events.value }
    var sink: @Sendable (ConversionEvent) async -> Void { { [events] event in events.update { $0.append(event) } } }
}

/// One job's scratch space and a request for it.
struct HTTPBackendJob {
    let directory = TemporaryDirectory("pdfgate-remote")
    var output: String { directory.file("output.pdf") }
    var outputExists: Bool { FileManager.default.fileExists(atPath: output) }

    func request(
        _ type: JobType,
        _ source: ConversionSource,
        options: ConversionOptions = ConversionOptions(),
        timeout: Duration = .seconds(3),
        remoteID: String? = nil,
        jobID: UUID = UUID()
    ) -> ConversionRequest {
        ConversionRequest(
            jobID: jobID,
            type: type,
            source: source,
            options: options,
            workDirectory: directory.path,
            outputPath: output,
            deadline: .now + timeout,
            remoteID: remoteID
        )
    }

    /// A staged copy of a fixture under a client-chosen name.
    func staged(_ fixture: String, as name: String) throws -> ConversionSource {
        let path = directory.file("input-" + name)
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return .file(path: path, originalFilename: name)
    }
}

/// The error `body` throws, if any.
func thrownError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// The `JobFailure` `body` throws; records an issue when it throws something else or nothing.
func thrownFailure(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> JobFailure? {
    let error = await thrownError(body)
    guard let failure = error as? JobFailure else {
        Issue.record("expected a JobFailure, got \(error.map { "\($0)" } ?? "success")", sourceLocation: sourceLocation)
        return nil
    }
    return failure
}

/// The bytes of `Fixtures/pdf/one-page.pdf`: what fake backends answer with.
let onePagePDF: [UInt8] = Array(FileManager.default.contents(atPath: Fixtures.pdf("one-page.pdf")) ?? Data())

func fileBytes(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

func sha256Hex(ofFile path: String) async throws -> String {
    String(try await run("sha256sum", [path]).stdout.prefix(64))
}

/// Seconds from `start` to now.
func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    start.duration(to: .now).inSeconds
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The shared real HTTP/1.1 test server. Spelled with its module because this test target also
/// declares a `LoopbackHTTPServer` of its own (a python static file server for Chromium tests).
typealias FakeHTTPServer = GatewayTestSupport.LoopbackHTTPServer
