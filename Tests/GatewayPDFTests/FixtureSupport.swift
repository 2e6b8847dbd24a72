import Foundation
import GatewayLibraryModel
import GatewayPDF
import GatewayTestSupport

/// Locates the repository's Fixtures/ from this file, so tests run from any working directory.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // GatewayPDFTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    static func pdf(_ name: String) -> String {
        root.appendingPathComponent("pdf").appendingPathComponent(name).path
    }

    static var expectedJSON: URL { root.appendingPathComponent("expected.json") }
}

/// A pool over the worker built next to the test bundle.
func makePool(
    poolSize: Int = 2,
    timeout: Duration = .seconds(30),
    memoryLimitBytes: Int = 1 << 30
) -> PDFInspectorPool {
    PDFInspectorPool(
        configuration: .init(poolSize: poolSize, timeout: timeout, memoryLimitBytes: memoryLimitBytes)
    )
}

/// Runs `pdfinfo` (poppler-utils) and returns its "Key: value" lines.
func pdfinfo(_ path: String, password: String? = nil) throws -> [String: String] {
    let result = try runBlocking("/usr/bin/pdfinfo", (password.map { ["-upw", $0] } ?? []) + [path], environment: nil, stdin: nil)
    var fields: [String: String] = [:]
    for line in result.stdout.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return fields
}

/// Runs `body` and returns its result with the wall-clock time it took.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let value = try await body()
    return (value, ContinuousClock.now - start)
}

/// The error `body` threw, as an InspectionError; nil when it succeeded or threw something else.
func inspectionError(_ body: () async throws -> PDFInfo) async -> InspectionError? {
    do {
        _ = try await body()
        return nil
    } catch let error as InspectionError {
        return error
    } catch {
        return nil
    }
}

func inspectionOutcome(_ body: () async throws -> PDFInfo) async -> Result<PDFInfo, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pdfgate-pdf-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
