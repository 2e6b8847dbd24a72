import Foundation
import GatewayCore
import GatewayLibraryModel
import GatewayProcess
import Synchronization

/// Inspects PDFs in a small pool of long-lived `pdfgate inspect-worker` processes, each with a
/// memory cap, killed past a wall-clock limit and replaced when it dies. Poppler can loop for
/// minutes or allocate gigabytes on hostile files, and nothing in-process can stop it.
public final class PDFInspectorPool: PDFInspector {
    /// How many workers, where to find them and how far each may go.
    public struct Configuration: Sendable {
        /// Absolute path of the `pdfgate` executable, which runs the worker as a hidden subcommand.
        public var executable: String
        /// At most this many worker processes exist, and inspect concurrently.
        public var poolSize: Int
        /// Wall-clock limit for one inspection, thumbnail included; past it the worker is killed.
        public var timeout: Duration
        /// Address-space cap (RLIMIT_AS) of each worker. An idle worker maps all of `pdfgate` (runtime,
        /// Foundation, Poppler, cairo) before it reads a PDF, so caps under ~512 MiB leave little for the PDF.
        public var memoryLimitBytes: Int
        /// The workers' scheduling niceness (0–19): above 0 they yield the CPU to everything else,
        /// for work that can wait (reading text for the search index while jobs convert).
        public var niceness: Int

        /// Defaults: the `pdfgate` that `HelperExecutable` finds, 2 workers, 30 s, 1 GiB, nice 0.
        public init(
            executable: String = HelperExecutable.path,
            poolSize: Int = 2,
            timeout: Duration = .seconds(30),
            memoryLimitBytes: Int = 1 << 30,
            niceness: Int = 0
        ) {
            self.executable = executable
            self.poolSize = max(1, poolSize)
            self.timeout = timeout
            self.memoryLimitBytes = memoryLimitBytes
            self.niceness = min(19, max(0, niceness))
        }
    }

    /// The configuration the pool was created with.
    public let configuration: Configuration
    /// One slot per worker the pool may run; a slot starts its worker on first use and replaces
    /// it when it dies. Waiters queue in `SlotPool`, first come, first served.
    private let slots: SlotPool<InspectorSlot>

    /// Workers start lazily, on the first inspections.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        // A slot busy when the pool shuts down ends its worker once its inspection is done.
        slots = SlotPool((0..<configuration.poolSize).map { _ in InspectorSlot() }, afterShutDown: { await $0.shutDown() })
    }

    /// Inspects the PDF at `path` in a worker; see `PDFInspector`.
    public func inspect(path: String, thumbnail: ThumbnailRequest?) async throws -> PDFInfo {
        try await inspect(path: path, thumbnail: thumbnail, textOutputPath: nil).info
    }

    /// Inspects the PDF at `path` in a worker, which also writes the pages' text to
    /// `textOutputPath` when given (`DocumentText` reads it back). Within the same time limit as
    /// the inspection: a hostile PDF that loops in text extraction times out like any other.
    public func inspect(path: String, thumbnail: ThumbnailRequest?, textOutputPath: String?) async throws -> PDFInspection {
        let request: [UInt8]
        do {
            request = try WorkerProtocol.encodeLine(WorkerProtocol.Request(path: path, thumbnail: thumbnail, textOutputPath: textOutputPath))
        } catch {
            throw InspectionError(.inspectorUnavailable, "the inspection request could not be encoded: \(error)")
        }

        do {
            return try await slots.withSlot { slot in try await inspect(request, path: path, in: slot) }
        } catch is SlotPool<InspectorSlot>.ShutDown {
            throw Self.shutDownError
        }
    }

    private func inspect(_ request: [UInt8], path: String, in slot: InspectorSlot) async throws -> PDFInspection {
        let reused = slot.hasWorker
        var worker = try await slot.ready(configuration)
        var outcome = await exchange(request, with: worker, in: slot)
        // It died while idle, before seeing this file: not this file's fault, try a fresh one. A
        // worker killed while idle (the OOM killer picks large idle processes) can also take the
        // request before the kernel has closed its socket and reported its exit, and then seem to
        // die of it: only a fresh worker's death is the file's.
        let diedBeforeThisFile =
            switch outcome {
            case .unreachable: true
            case .died: reused
            default: false
            }
        if diedBeforeThisFile {
            worker = try await slot.ready(configuration)
            outcome = await exchange(request, with: worker, in: slot)
        }

        let name = PDFFileCheck.displayName(path)
        switch outcome {
        case .reply(let line):
            guard let response = try? WorkerProtocol.decodeLine(WorkerProtocol.Response.self, from: line),
                let result = response.result
            else {
                await slot.discard(worker)
                throw InspectionError(.inspectorUnavailable, "the inspect worker sent a garbled answer for \(name)")
            }
            return PDFInspection(info: try result.get(), text: response.text)
        case .timedOut:
            slot.forget(worker)
            throw InspectionError(
                .timedOut,
                "inspection of \(name) did not finish within \(configuration.timeout.inWords); the PDF is probably hostile or broken"
            )
        case .interrupted:
            slot.forget(worker)
            throw CancellationError()
        case .died(let how), .unreachable(let how):
            slot.forget(worker)
            throw InspectionError(
                .resourceLimit,
                "inspection of \(name) crashed the inspector, which \(how); the PDF probably needs more than its \(Self.describe(bytes: configuration.memoryLimitBytes)) memory cap or is malformed in a way that crashes Poppler"
            )
        }
    }

    /// Inspects a one-page PDF of our own: nil when a worker starts and answers, else why not.
    /// `/readyz` asks this, so a build without a working inspector never reports ready.
    public func selfCheck() async -> String? {
        let path = FileManager.default.temporaryDirectory.path + "/pdfgate-selfcheck-\(getpid())-\(UUID().uuidString.prefix(8)).pdf"
        guard FileManager.default.createFile(atPath: path, contents: Data(MinimalPDF.onePage.utf8)) else {
            return "cannot write a probe PDF in \(FileManager.default.temporaryDirectory.path)"
        }
        defer { unlink(path) }
        do {
            let info = try await inspect(path: path, thumbnail: nil)
            return info.pageCount == 1 ? nil : "the inspector read \(info.pageCount) pages from a one-page PDF"
        } catch {
            return "\(error)"
        }
    }

    /// Runs `body` with this pool, then shuts it down whatever `body` threw: its workers are gone
    /// before the caller goes on.
    public func using<T>(_ body: (PDFInspectorPool) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await shutdown()
            return result
        } catch {
            await shutdown()
            throw error
        }
    }

    /// Ends all idle workers (stdin closed, SIGKILL after 1 s) and refuses new inspections;
    /// workers busy now are ended when their inspection finishes.
    public func shutdown() async {
        let idle = slots.shutDown()
        await withTaskGroup(of: Void.self) { group in
            for slot in idle { group.addTask { await slot.shutDown() } }
        }
    }

    /// Process ids of the live workers, for tests that kill one from outside.
    package func workerPIDs() -> (idle: [pid_t], busy: [pid_t]) {
        let workers = slots.slots.compactMap { $0.worker }
        return (workers.filter { !$0.busy }.map { $0.pid }, workers.filter { $0.busy }.map { $0.pid })
    }

    /// One request on `worker`; cancelling the task kills the worker.
    private func exchange(_ request: [UInt8], with worker: InspectorWorker, in slot: InspectorSlot) async -> InspectorWorker.Outcome {
        let deadline = ContinuousClock.now + configuration.timeout
        slot.setBusy(true)
        defer { slot.setBusy(false) }
        return await withTaskCancellationHandler {
            await worker.exchange(request, deadline: deadline)
        } onCancel: {
            worker.interrupt()
        }
    }

    // MARK: - Helpers

    private static let shutDownError = InspectionError(.inspectorUnavailable, "the PDF inspector has been shut down")

    static func describe(bytes: Int) -> String {
        let mebibytes = Double(bytes) / Double(1 << 20)
        if mebibytes >= 1024, mebibytes.truncatingRemainder(dividingBy: 1024) == 0 {
            return "\(Int(mebibytes / 1024)) GiB"
        }
        return "\(Int(mebibytes.rounded())) MiB"
    }
}
