import Foundation
import GatewayCore

/// Office documents → PDF through a bounded set of warm LibreOffice slots (DESIGN §4).
final class LibreOfficePool: Converter {
    let name = "local.libreoffice"
    let slots: SlotPool<LibreOfficeSlot>
    private let sofficePath: String
    private let pythonPath: String

    /// Slots are created here but start LibreOffice lazily, on their first conversion.
    /// `directory` must be private to this pool; the UNO worker script is written into it.
    init(configuration: LocalConverter.Configuration, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scriptPath = directory + "/" + UnoWorkerScript.fileName
        try UnoWorkerScript.source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // Pipe names are global to the machine: make ours unique per pool.
        let token = "\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        sofficePath = configuration.sofficePath
        pythonPath = configuration.pythonPath
        slots = SlotPool(
            (0..<max(1, configuration.libreOfficeSlots)).map { index in
                LibreOfficeSlot(
                    index: index,
                    settings: .init(
                        sofficePath: configuration.sofficePath,
                        pythonPath: configuration.pythonPath,
                        scriptPath: scriptPath,
                        directory: directory + "/slot-\(index)",
                        pipeName: "pdfgate-\(token)-slot-\(index)",
                        maxConversions: max(1, configuration.maxConversionsPerLibreOfficeInstance),
                        startTimeout: configuration.libreOfficeStartTimeout
                    )
                )
            }
        )
    }

    func convert(_ request: ConversionRequest, events: @escaping @Sendable (ConversionEvent) -> Void) async throws {
        guard case .file(let path, let originalFilename) = request.source else {
            throw JobFailure(.rejected, code: "unsupported_source", "LibreOffice converts uploaded files, not URLs")
        }
        try Task.checkCancellation()
        events(.entered(.converting))
        let input = try InputStaging.stage(path, originalFilename: originalFilename, in: request.workDirectory)
        let output = request.workDirectory + "/libreoffice-output.pdf"
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        let deadline = request.deadline
        let outcome = try await LocalFailures.withSlot(slots, tool: "LibreOffice", what: originalFilename, deadline: deadline) { slot in
            slot.prepare()
            return await withTaskCancellationHandler {
                await runBlocking { slot.convert(input: input, output: output, name: originalFilename, deadline: deadline) }
            } onCancel: {
                slot.interrupt()
            }
        }
        switch outcome {
        case .converted:
            try OutputCheck.verify(output, tool: "LibreOffice")
            try OutputCheck.deliver(output, to: request.outputPath)
        case .failed(let failure):
            throw failure
        case .timedOut:
            throw LocalFailures.timedOut("LibreOffice", originalFilename)
        case .interrupted:
            if Task.isCancelled { throw CancellationError() }
            throw LocalFailures.shutDown("LibreOffice")
        }
    }

    func isReady() async -> Bool {
        FileManager.default.isExecutableFile(atPath: sofficePath) && FileManager.default.isExecutableFile(atPath: pythonPath)
    }

    /// Ends every slot's LibreOffice: idle ones gracefully, busy ones by SIGKILL.
    func shutdown() async {
        _ = slots.shutDown()
        let all = slots.slots
        await runBlocking {
            // Each slot waits up to a few seconds for a clean exit; do them side by side.
            DispatchQueue.concurrentPerform(iterations: all.count) { all[$0].shutDown() }
        }
    }
}
