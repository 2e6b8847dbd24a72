import Foundation
import GatewayJobModel
import Synchronization

/// A real converter for PDFs in: the output is the input. The "instant converter" for pipeline
/// tests and the pipeline-overhead benchmark.
public struct PassthroughConverter: Converter {
    public let name = "passthrough"

    public init() {}

    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        guard case .file(let path, _) = request.source else {
            throw JobFailure(.rejected, code: "unsupported", "passthrough converts files only")
        }
        await events(.entered(.converting))
        try FileManager.default.copyItem(atPath: path, toPath: request.outputPath)
    }

    public func isReady() async -> Bool { true }
}

/// A converter that misbehaves on purpose, one scripted behaviour per attempt, then passes
/// through. For retry, deadline and cancellation tests of the engine.
public final class ScriptedConverter: Converter {
    public enum Behaviour: Sendable {
        case fail(JobFailure)
        /// Never finishes until cancelled (ignores the deadline, to prove the engine enforces it).
        case hang
        /// Exits "successfully" with these bytes as the PDF.
        case output([UInt8])
        case succeed
    }

    public let name = "scripted"
    private let script: Mutex<[Behaviour]>
    /// How many attempts reached this converter.
    public var calls: Int { callCount.withLock { $0 } }
    private let callCount = Mutex(0)

    public init(_ script: [Behaviour]) {
        self.script = Mutex(script)
    }

    public func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) async -> Void) async throws {
        callCount.withLock { $0 += 1 }
        await events(.entered(.converting))
        let next = script.withLock { $0.isEmpty ? Behaviour.succeed : $0.removeFirst() }
        switch next {
        case .fail(let failure): throw failure
        case .hang:
            try await FakeDelay.hangUntilCancelled()
        case .output(let bytes):
            try Data(bytes).write(to: URL(fileURLWithPath: request.outputPath))
        case .succeed:
            try await PassthroughConverter().convert(request, events: events)
        }
    }

    public func isReady() async -> Bool { true }
}
