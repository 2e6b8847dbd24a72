import Foundation
import GatewayCore
import GatewayJobModel
import GatewayLibraryModel
import Logging

/// One attempt of one job: convert → inspect → file. Each step is recorded as a state-machine
/// event; whatever a step throws becomes a classified failure event.
struct AttemptPipeline: Sendable {
    let recorder: JobRecorder
    let inspector: any PDFInspector
    /// Runs a job's `operations`; nil where none are configured (jobs with operations then fail).
    let tools: (any PDFOperator)?
    /// Where a converter that cannot start here is reported, and found out before it is tried.
    let outages: ConverterOutages
    let logger: Logger

    var staging: any InputStaging { recorder.staging }
    var filer: any DocumentFiler { recorder.filer }
    var clock: JobClock { recorder.clock }

    func run(_ job: Job, converter: any Converter) async {
        var metadata: Logger.Metadata = ["job.id": "\(job.id.lowercased)", "converter": "\(converter.name)"]
        // Known not to start here: the job fails at once with the cause, not after its deadline.
        if let failure = outages.failure(for: job.spec.type) {
            metadata["error.code"] = "\(failure.code)"
            logger.notice("jobs.attempt_refused", metadata: metadata)
            _ = try? await record(.failed(failure), of: job)
            return
        }
        do {
            if let document = try await attempt(job, converter: converter) { metadata["document.id"] = "\(document.id.lowercased)" }
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
            if failure.kind == .cannotStart {
                outages.mark(job.spec.type, failure)
                logger.error("jobs.converter_cannot_start", metadata: ["job.type": "\(job.spec.type.rawValue)", "problem": "\(failure.message)"])
            }
            _ = try? await record(.failed(failure), of: job)
        }
    }

    /// Every event an attempt records is fenced by the lease it was claimed with: once another
    /// engine has taken the job over, nothing this attempt reports changes it.
    @discardableResult
    private func record(_ event: JobStateMachine.Event, of job: Job) async throws -> Job {
        let node = job.lease?.node
        return try await recorder.apply(event, to: job.id) { $0.lease?.node == node }
    }

    /// The document filed; nil for a result kept beside the job (a screenshot).
    private func attempt(_ job: Job, converter: any Converter) async throws -> Document? {
        let remaining = job.state.deadline.timeIntervalSince(clock.now())
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(remaining, 0) * 1000))
        // The job may have been created and uploaded to on other nodes.
        try await staging.gather(for: job)
        let workDirectory = try staging.attemptDirectory(for: job)
        let output = workDirectory + "/output.pdf"
        let secrets = staging.secrets(jobID: job.id)
        var request = ConversionRequest(
            jobID: job.id,
            type: job.spec.type,
            source: try await source(of: job, secrets: secrets),
            options: job.spec.options,
            workDirectory: workDirectory,
            outputPath: output,
            deadline: deadline,
            remoteID: job.state.remoteID,
            secrets: secrets,
            screenshot: job.spec.type == .screenshot ? job.spec.screenshot ?? ScreenshotOptions() : nil
        )
        request.gotenbergSemantics = job.spec.gotenbergSemantics == true
        let events: @Sendable (ConversionEvent) async -> Void = { event in
            switch event {
            case .entered(let phase): _ = try? await record(.entered(phase), of: job)
            case .remoteJobCreated(let id): _ = try? await record(.remoteCreated(id), of: job)
            case .warned(let warnings): _ = try? await record(.warned(warnings), of: job)
            }
        }
        // The converter should honour the deadline itself; this makes sure a stuck one cannot hold the job.
        try await Self.withDeadline(deadline) { [request] in
            var request = request
            // A scan's images are its converter's own inputs: one PDF of them all, not a merge.
            if let inputs = job.spec.inputs, job.spec.type != .scanToPDF {
                let conversions = InputConversions(router: recorder.router, staging: staging)
                request.source = .pdfs(try await conversions.convert(job, inputs: inputs, like: request, events: events))
            }
            try await converter.convert(request, events: events)
        }
        try Task.checkCancellation()
        if let screenshot = request.screenshot {
            try await keep(output, of: job, as: screenshot.format)
            return nil
        }
        var outputs = [output]
        var (operations, encrypt) = (job.spec.operations ?? []).splittingOffEncryption
        if job.spec.gotenbergSemantics == true { operations = operations.map(\.clippingPagesPastTheEnd) }
        let work = workDirectory + "/operations"
        if !operations.isEmpty || encrypt != nil {
            guard let tools else {
                throw JobFailure.converterUnavailable("this gateway runs no PDF operations (qpdf and Ghostscript are not configured)")
            }
            try await advance(.entered(.transforming), job)
            // The tools stop at the deadline themselves: each run is killed then.
            if !operations.isEmpty { outputs = try await tools.apply(operations, to: output, secrets: secrets, work: work, deadline: deadline) }
            try Task.checkCancellation()
        }
        try await advance(.entered(.inspecting), job)
        var inspected: [(path: String, info: PDFInfo)] = []
        for path in outputs { inspected.append((path, try await inspector.inspect(path: path))) }
        if let encrypt, let tools {
            // Inspected while it could still be read; what encryption changes is said here.
            for index in inspected.indices {
                let locked = try await tools.apply(
                    [encrypt],
                    to: inspected[index].path,
                    secrets: secrets,
                    work: work + "-\(index)",
                    deadline: deadline
                )
                inspected[index].path = locked[0]
                inspected[index].info.encrypted = true
                inspected[index].info.linearized = false
            }
        }
        try await advance(.entered(.filing), job)
        return try await file(inspected, of: job)
    }

    /// What the converter reads: the page, the library documents (where they are now), or the
    /// staged upload.
    private func source(of job: Job, secrets: JobSecrets) async throws -> ConversionSource {
        if let inputs = job.spec.inputs {
            if job.spec.type == .scanToPDF {
                return .images(
                    inputs.enumerated().compactMap { part, input in
                        input.filename.map { StagedFile(path: staging.inputPath(for: job, part: part), originalFilename: $0) }
                    }
                )
            }
            // Several inputs are converted first, inside the deadline (`InputConversions`).
            return .pdfs([])
        }
        if let url = job.spec.url { return .url(url) }
        if let ids = job.spec.documents, !ids.isEmpty {
            var inputs: [PDFInput] = []
            for id in ids {
                let stored = try await filer.storedDocument(id: id, owner: job.owner)
                inputs.append(
                    PDFInput(
                        path: stored.path,
                        password: secrets.password(for: id.lowercased),
                        label: "'\(stored.document.name)'",
                        isReadable: !stored.document.info.encrypted
                    )
                )
            }
            return .pdfs(inputs)
        }
        return .file(path: staging.inputPath(for: job), originalFilename: job.spec.originalFilename ?? "input")
    }

    /// Files the PDFs and records them, shielded: a task cancelled now (a shutdown's grace
    /// running out) must not stop them halfway. A client's cancel is still seen: the state
    /// machine then refuses `.filed`.
    ///
    /// Several PDFs (a split) are filed in order as parts of the job, `Name 01`, `Name 02` …; a
    /// job asked to replace its original puts the one PDF in its place, keeping its id.
    private func file(_ outputs: [(path: String, info: PDFInfo)], of job: Job) async throws -> Document {
        let filer = filer
        let spec = job.spec
        let replacing = spec.replaceOriginal == true ? spec.documents?.first : nil
        let documents = try await shielded {
            if let original = replacing {
                return [try await filer.replaceContent(of: original, owner: job.owner, with: outputs[0].path, info: outputs[0].info)]
            }
            var filed: [Document] = []
            for (part, output) in outputs.enumerated() {
                let name = spec.defaultDocumentName
                filed.append(
                    try await filer.fileConverted(
                        output.path,
                        id: Job.documentID(for: job.id, part: part),
                        owner: job.owner,
                        folder: spec.folder,
                        name: outputs.count > 1 ? LibraryNames.numbered(name, part + 1) : name,
                        conflict: spec.onConflict,
                        info: output.info
                    )
                )
            }
            return filed
        }
        let pipeline = self
        do {
            try await shielded { try await pipeline.record(.filed(documents[0].id, parts: documents.count), of: job) }
        } catch {
            // A cancel that landed during filing makes the state machine refuse `.filed`: the
            // documents must not outlive their job. (A retry files them again.) A job another
            // engine took over is left alone: the documents have the job's ids, and they are
            // theirs to file. A replaced original stays replaced: it is the user's document.
            if !(error is LeaseMismatch) && replacing == nil {
                _ = try? await shielded {
                    for document in documents { _ = try? await filer.discardConverted(id: document.id, owner: job.owner) }
                }
            }
            throw error
        }
        return documents[0]
    }

    /// Keeps a screenshot for its requester once it is checked to be the image it should be
    /// (whichever converter the type is routed to).
    private func keep(_ output: String, of job: Job, as format: ScreenshotOptions.Format) async throws {
        let head = (FileHandle(forReadingAtPath: output).flatMap { try? $0.read(upToCount: 12) }) ?? Data()
        guard format.matches(head) else {
            throw JobFailure(.transient, code: "no_output", "the converter wrote no \(format.rawValue.uppercased()) image")
        }
        try await advance(.entered(.filing), job)
        try filer.keepResult(output, jobID: job.id)
        let pipeline = self
        do {
            try await shielded { try await pipeline.record(.produced, of: job) }
        } catch {
            if !(error is LeaseMismatch) { filer.discardResult(jobID: job.id) }
            throw error
        }
    }

    /// Records a step of the attempt; stops the attempt when the job is no longer processing
    /// (cancelled meanwhile, or its deadline passed).
    private func advance(_ event: JobStateMachine.Event, _ job: Job) async throws {
        if try await record(event, of: job).state.status != .processing { throw CancellationError() }
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
        // Space may be freed before the next attempt; if not, the job says why it failed.
        if !(error is JobFailure), DiskFull.matches(error) { return JobFailure(.transient, code: DiskFull.code, DiskFull.message) }
        switch error {
        case let failure as JobFailure: return failure
        case let inspection as InspectionError:
            return JobFailure(
                inspection.kind == .inspectorUnavailable ? .transient : .rejected,
                code: "invalid_output",
                "the converter's output is not a usable PDF: \(inspection.message)"
            )
        // The bucket away (an outage) is waited out like a converter that is down, until the deadline.
        case let library as LibraryError where library.kind == .storageUnavailable:
            return JobFailure(.unavailable, code: library.code, library.message)
        case let staging as StagingError where staging.kind == .unavailable:
            return JobFailure(.unavailable, code: staging.code, staging.message)
        case let library as LibraryError:
            return JobFailure(library.kind == .storage ? .transient : .rejected, code: library.code, library.message)
        case let gateway as any GatewayError:
            return JobFailure(.transient, code: gateway.code, gateway.message)
        default:
            return JobFailure(.transient, code: "internal_error", "unexpected failure: \(error)")
        }
    }
}
