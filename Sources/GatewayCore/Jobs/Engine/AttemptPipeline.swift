import Foundation
import Logging

/// One attempt of one job: convert → inspect → file. Each step is recorded as a state-machine
/// event; whatever a step throws becomes a classified failure event.
struct AttemptPipeline: Sendable {
    let recorder: JobRecorder
    let inspector: any PDFInspector
    let logger: Logger

    var staging: any InputStaging { recorder.staging }
    var filer: any DocumentFiler { recorder.filer }
    var clock: JobClock { recorder.clock }

    func run(_ job: Job, converter: any Converter) async {
        var metadata: Logger.Metadata = ["job.id": "\(job.id.lowercased)", "converter": "\(converter.name)"]
        do {
            let document = try await attempt(job, converter: converter)
            metadata["document.id"] = "\(document.id.lowercased)"
            logger.info("jobs.succeeded", metadata: metadata)
        } catch is CancellationError {
            // Cancelled by the client (the state machine already says so) or by shutdown: in the
            // latter case the job stays PROCESSING and resumes at the next start.
            logger.info("jobs.attempt_stopped", metadata: metadata)
        } catch is LeaseMismatch {
            // This engine stalled past its lease and another took the job over: it is theirs.
            logger.warning("jobs.attempt_superseded", metadata: metadata)
        } catch {
            let failure = Self.classify(error)
            metadata["error.code"] = "\(failure.code)"
            logger.notice("jobs.attempt_failed", metadata: metadata)
            _ = try? record(.failed(failure), of: job)
        }
    }

    /// Every event an attempt records is fenced by the lease it was claimed with: once another
    /// engine has taken the job over, nothing this attempt reports changes it.
    @discardableResult
    private func record(_ event: JobStateMachine.Event, of job: Job) throws -> Job {
        let node = job.lease?.node
        return try recorder.apply(event, to: job.id) { $0.lease?.node == node }
    }

    private func attempt(_ job: Job, converter: any Converter) async throws -> Document {
        let remaining = job.state.deadline.timeIntervalSince(clock.now())
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(remaining, 0) * 1000))
        let workDirectory = try staging.attemptDirectory(for: job)
        let output = workDirectory + "/output.pdf"
        let source: ConversionSource =
            if let url = job.spec.url {
                .url(url)
            } else {
                .file(path: staging.inputPath(for: job), originalFilename: job.spec.originalFilename ?? "input")
            }
        let request = ConversionRequest(
            jobID: job.id,
            type: job.spec.type,
            source: source,
            options: job.spec.options,
            workDirectory: workDirectory,
            outputPath: output,
            deadline: deadline,
            remoteID: job.state.remoteID
        )
        // The converter should honour the deadline itself; this makes sure a stuck one cannot hold the job.
        try await Self.withDeadline(deadline) {
            try await converter.convert(request) { event in
                switch event {
                case .entered(let phase): _ = try? record(.entered(phase), of: job)
                case .remoteJobCreated(let id): _ = try? record(.remoteCreated(id), of: job)
                }
            }
        }
        try Task.checkCancellation()
        try advance(.entered(.inspecting), job)
        let info = try await inspector.inspect(path: output)
        try advance(.entered(.filing), job)
        return try await file(output, of: job, info: info)
    }

    /// Files the PDF and records it. Both run on a blocking thread: they fsync, and a task
    /// cancelled now (a shutdown's grace running out) must not stop GRDB's writes halfway. A
    /// client's cancel is still seen: the state machine then refuses `.filed`.
    private func file(_ output: String, of job: Job, info: PDFInfo) async throws -> Document {
        let filer = filer
        let document = try await runBlocking {
            Result {
                try filer.fileConverted(
                    output,
                    id: JobEngine.documentID(for: job.id),
                    owner: job.owner,
                    folder: job.spec.folder,
                    name: job.spec.defaultDocumentName,
                    conflict: job.spec.onConflict,
                    info: info
                )
            }
        }.get()
        let recorded = await runBlocking { Result { try record(.filed(document.id), of: job) } }
        if case .failure(let error) = recorded {
            // A cancel that landed during filing makes the state machine refuse `.filed`: the
            // document must not outlive its job. (A retry files it again.) A job another engine
            // took over is left alone: the document has the job's id, and it is theirs to file.
            if !(error is LeaseMismatch) {
                _ = await runBlocking { try? filer.discardConverted(id: document.id, owner: job.owner) }
            }
            throw error
        }
        return document
    }

    /// Records a step of the attempt; stops the attempt when the job is no longer processing
    /// (cancelled meanwhile, or its deadline passed).
    private func advance(_ event: JobStateMachine.Event, _ job: Job) throws {
        if try record(event, of: job).state.status != .processing { throw CancellationError() }
    }

    /// Runs `body`, cancelling it and throwing a timed-out failure at `deadline`.
    static func withDeadline(_ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            defer { group.cancelAll() }
            if try await group.next() == false {
                throw JobFailure(.timedOut, code: "timed_out", "the converter did not finish before the job's deadline")
            }
        }
    }

    /// Maps anything a step threw to a classified failure.
    static func classify(_ error: any Error) -> JobFailure {
        switch error {
        case let failure as JobFailure: return failure
        case let inspection as InspectionError:
            return JobFailure(
                inspection.kind == .inspectorUnavailable ? .transient : .rejected,
                code: "invalid_output",
                "the converter's output is not a usable PDF: \(inspection.message)"
            )
        case let library as LibraryError:
            return JobFailure(library.kind == .storage ? .transient : .rejected, code: library.code, library.message)
        case let gateway as any GatewayError:
            return JobFailure(.transient, code: gateway.code, gateway.message)
        default:
            return JobFailure(.transient, code: "internal_error", "unexpected failure: \(error)")
        }
    }
}
