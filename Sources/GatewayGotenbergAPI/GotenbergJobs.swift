import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibraryModel

/// Gotenberg's routes answer with the PDF itself, so each of their requests runs as jobs of the
/// engine that the request waits for: created through the intake (its checks, SSRF rules and
/// per-owner limits), run by the engine (sandbox, retries, deadline, metrics, `GET /v1/jobs`),
/// and their documents taken back out of the library once the answer is sent — unless the
/// caller asked to keep them (`Pdfgate-Folder`).
package struct GotenbergJobs: Sendable {
    let intake: JobIntake
    let library: any DocumentLibrary
    /// Gotenberg's queue on our limits, for its routes' requests; nil: the limits answer 429.
    var admission: GotenbergAdmission? = nil
    /// `--api-timeout`: each job's time is what is left of its request's.
    var timeout: Duration? = nil

    package init(intake: JobIntake, library: any DocumentLibrary, admission: GotenbergAdmission? = nil, timeout: Duration? = nil) {
        self.intake = intake
        self.library = library
        self.admission = admission
        self.timeout = timeout
    }

    /// `attempt` once room is made for it (`GotenbergAdmission`).
    func admitting<T>(_ attempt: () async throws -> T) async throws -> T {
        guard let admission else { return try await attempt() }
        return try await admission.admitting(attempt)
    }

    /// The `Gotenberg-Trace` of the request being answered (`GotenbergController.receiving` sets
    /// it), kept with its jobs so `GET /v1/jobs` shows which request each answered.
    @TaskLocal static var trace: String?
    /// The request's W3C `traceparent` (or a new trace), sent on with its downloads and webhooks.
    @TaskLocal static var traceParent: TraceParent?

    var engine: JobEngine { intake.engine }

    /// One job of a request: what to make, the files received for it, and the name its PDF
    /// goes by in the answer (nil: the job's id, as Gotenberg names what it generated).
    struct Planned: Sendable {
        var spec: JobSpec
        var files: [String]
        var name: String? = nil
        /// Whether its PDFs are parts of a split, named `<name>_<i>.pdf`.
        var parts = false
    }

    /// A finished job's PDFs (several for a split), in order, with the name each goes by; or,
    /// for a screenshot, the image kept beside it.
    struct Output: Sendable {
        var job: Job
        var documents: [(document: Document, path: String)]
        var name: String?
        var parts: Bool
        var image: (path: String, format: ScreenshotOptions.Format)? = nil

        /// Gotenberg's names: the job's (or its id `.pdf`); a split's parts `<stem>_0.pdf`,
        /// `<stem>_1.pdf` … counted from 0.
        var filenames: [String] {
            let base = name ?? job.id.lowercased + ".pdf"
            guard parts else { return documents.map { _ in base } }
            let stem = base.lowercased().hasSuffix(".pdf") ? String(base.dropLast(4)) : base
            return documents.indices.map { "\(stem)_\($0).pdf" }
        }
    }

    /// Creates every job, then waits for all of them. Cancelled (the client hung up), it cancels
    /// the jobs; a job that did not succeed fails the whole request with its failure, and the
    /// others' documents are discarded. In webhook mode (`GotenbergWebhook.accepting`) it hands
    /// the created jobs over instead (`GotenbergAccepted`): the delivery waits for them.
    func run(_ planned: [Planned], owner: String, secrets: JobSecrets) async throws -> [Output] {
        var jobs: [Job] = []
        do {
            for (index, plan) in planned.enumerated() {
                var spec = plan.spec
                // Bounded: it is the client's header, stored with every job it made.
                spec.trace = Self.trace
                // Page ranges past the end keep the pages that exist, as on Gotenberg (what was
                // left out is said in the answer: `GotenbergWarnings`); waits as Gotenberg's.
                spec.gotenbergSemantics = true
                if timeout != nil, let deadline = GotenbergAdmission.current?.deadline {
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else { throw GotenbergError.timedOut }
                    spec.timeoutSeconds = min(3600, max(1, Double(left.components.seconds)))
                }
                // The request took the creation rate for its first job before its body (`admitBeforeBody`).
                let created = try await admitting {
                    try await intake.create(spec, owner: owner, inputs: plan.files.map { .moving($0) }, rateTaken: index == 0, secrets: secrets)
                }
                jobs.append(created.job)
            }
        } catch {
            for job in jobs { _ = try? await engine.cancel(job.id) }
            throw error
        }
        if GotenbergWebhook.accepting { throw GotenbergAccepted(jobs: Array(zip(jobs, planned))) }
        do {
            var ended: [Job] = []
            for job in jobs { ended.append(try await waitForEnd(job)) }
            return try await outputs(ended, planned: planned.map { ($0.name, $0.parts) }, owner: owner)
        } catch {
            for job in jobs { _ = try? await engine.cancel(job.id) }
            // Those that had ended before the others failed leave nothing behind either.
            await discard(await engine.current(jobs.map(\.id)))
            throw error
        }
    }

    /// The ended jobs' files, named as planned; a job that did not succeed fails them all with
    /// its failure (`GotenbergJobFailed`), the others' documents discarded.
    func outputs(_ ended: [Job], planned: [(name: String?, parts: Bool)], owner: String) async throws -> [Output] {
        if let failed = ended.first(where: { $0.state.status != .succeeded }) {
            await discard(ended)
            throw GotenbergJobFailed(job: failed)
        }
        var outputs: [Output] = []
        for (job, plan) in zip(ended, planned) {
            if job.spec.type == .screenshot {
                let format = job.spec.screenshot?.format ?? .png
                guard let path = library.keptResult(jobID: job.id) else {
                    throw GotenbergError(.internalServerError, "the screenshot of job \(job.id.lowercased) is gone")
                }
                outputs.append(Output(job: job, documents: [], name: plan.name, parts: false, image: (path, format)))
                continue
            }
            var documents: [(document: Document, path: String)] = []
            for id in job.filedDocumentIDs { documents.append(try await library.storedDocument(id: id, owner: owner)) }
            outputs.append(Output(job: job, documents: documents, name: plan.name, parts: plan.parts))
        }
        return outputs
    }

    /// Removes what `jobs` filed: the answer carried it, and Gotenberg keeps nothing.
    func discard(_ jobs: [Job]) async {
        for job in jobs where job.state.status == .succeeded {
            library.discardResult(jobID: job.id)
            for id in job.filedDocumentIDs { _ = try? await library.discardConverted(id: id, owner: job.owner) }
        }
    }

    /// The job once it has ended, as the engine publishes it (or another node's, which the
    /// engine relays to watchers). Cancelling the wait cancels the job, unless `cancelling` is
    /// false (a webhook's delivery stopped by a shutdown leaves its jobs to the next start).
    func waitForEnd(_ job: Job, cancelling: Bool = true) async throws -> Job {
        let engine = engine
        return try await withTaskCancellationHandler {
            guard let ended = try await engine.ended(job.id) else { throw CancellationError() }  // gone: nothing to answer
            return ended
        } onCancel: {
            // Not awaited: a cancellation handler cannot wait; the cancel is one store write.
            if cancelling { Task { _ = try? await engine.cancel(job.id) } }
        }
    }
}

/// A job of a Gotenberg request that failed or was cancelled: its failure becomes the answer.
struct GotenbergJobFailed: Error {
    var job: Job
}
