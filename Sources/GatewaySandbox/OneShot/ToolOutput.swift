import Foundation
import GatewayProcess

/// A tool run to its end for what it prints, as a plain child (it reads no document, so no
/// sandbox): `fc-list`, `tesseract --list-langs`, a converter's `--version`. Its standard output
/// goes through a file, so a long listing never blocks on a full pipe.
package enum ToolOutput {
    /// Why a tool printed nothing usable, in words that fit after its name.
    package struct Failure: Error, Sendable {
        package let reason: String
    }

    /// `executable`'s standard output once it exited 0 within `timeout`.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(20)
    ) async -> Result<String, Failure> {
        let output = FileManager.default.temporaryDirectory.path + "/pdfgate-output-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let spec = ChildSpec(
            executable: executable,
            arguments: arguments,
            environment: environment,
            workingDirectory: "/",
            stdout: .file(output),
            stderr: .null
        )
        let outcome: OneShotOutcome
        do throws(SpawnFailure) {
            outcome = try await runOneShot(spec, deadline: .now + timeout, limits: ResourceLimits())
        } catch {
            return .failure(Failure(reason: "could not be started: \(error.message)"))
        }
        switch outcome {
        case .finished(.exited(0)): return .success((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        case .finished(let termination): return .failure(Failure(reason: termination.description))
        case .timedOut: return .failure(Failure(reason: "did not answer within \(timeout)"))
        case .cancelled: return .failure(Failure(reason: "was cancelled"))
        case .limitExceeded(let kind): return .failure(Failure(reason: "went past its \(kind) limit"))
        }
    }
}
