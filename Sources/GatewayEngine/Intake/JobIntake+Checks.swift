import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayURLSecurity

/// What a job must pass before it is created: its inputs, its URLs, its converter, the owner's pace.
extension JobIntake {
    /// Everything about `spec` that can be known before storing it. `files` is how many files
    /// the request carries: one for a one-shot create or the CLI with a path, one per file input
    /// of a job with `inputs`.
    public func check(_ spec: JobSpec, owner: String, files: Int = 0) async throws {
        let withInput = files > 0
        guard engine.router.route(for: spec.type) != nil else {
            throw IntakeError(
                .noConverter,
                code: "no_converter",
                "no converter is configured for \(spec.type.rawValue) jobs; route that type to a backend in the configuration"
            )
        }
        try checkConverterStarts(for: spec.type)
        if let inputs = spec.inputs {
            try checkInputs(inputs, of: spec, files: files)
        } else if files > 1 {
            throw IntakeError(.invalid, code: "invalid_argument", "\(files) files came for one input; to merge several, list them in \"inputs\"")
        } else if let documents = spec.documents, !documents.isEmpty, spec.type != .pdfToPDF {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_type",
                "a job on library \"documents\" is PDF_TO_PDF (their PDFs are merged), not \(spec.type.rawValue); leave \"type\" out"
            )
        } else if spec.type == .screenshot, let url = spec.url {
            if withInput || spec.originalFilename != nil {
                throw IntakeError(.conflictingOptions, code: "conflicting_type", "a SCREENSHOT of a \"url\" carries no file")
            }
            try checkURL(url)
        } else if spec.type == .urlToPDF {
            if withInput || spec.originalFilename != nil {
                // The type contradicts what came (422, as for a merge's type).
                throw IntakeError(
                    .conflictingOptions,
                    code: "conflicting_type",
                    "a URL_TO_PDF job carries no file: send it as JSON with a \"url\", or leave \"type\" out for the file's own"
                )
            }
            guard let url = spec.url else { throw IntakeError(.invalid, code: "url_required", "a URL_TO_PDF job needs a \"url\"") }
            try checkURL(url)
        } else if let documents = spec.documents, !documents.isEmpty {
            if withInput {
                throw IntakeError(.invalid, code: "invalid_argument", "a job on library \"documents\" carries no file: send it as JSON")
            }
        } else {
            guard let filename = spec.originalFilename, !filename.isEmpty else {
                // A file that came without a name is one whose format nobody can tell (415);
                // a create that names none for a file still to come is missing a field (400).
                throw IntakeError(
                    withInput ? .unsupportedFormat : .invalid,
                    code: "filename_required",
                    "a \(spec.type.rawValue) job needs an \"original_filename\" whose extension says what the file is, e.g. \(spec.type == .scanToPDF ? "page-1.jpg" : "report.docx")"
                )
            }
            if let problem = SourceFormats.problem(with: filename, for: spec.type) {
                throw IntakeError(.unsupportedFormat, code: "unsupported_format", problem)
            }
        }
        if let problem = spec.screenshot?.problem {
            throw IntakeError(.invalid, code: "invalid_screenshot", problem)
        }
        if let timeout = spec.timeoutSeconds, !(timeout > 0 && timeout <= 3600) {
            throw IntakeError(.invalid, code: "invalid_argument", "timeout_seconds must be between 0 and 3600")
        }
        do {
            try spec.options.validate()
            if let inputs = spec.inputs {
                try spec.options.checkApplies(toInputs: inputs)
            } else {
                try spec.options.checkApplies(to: spec.type, originalFilename: spec.originalFilename)
            }
        } catch {
            throw IntakeError(error.kind == .conflicting ? .conflictingOptions : .invalid, code: error.code, error.message)
        }
        if let callback = spec.callbackURL { try checkURL(callback) }
        // A name or folder the library would refuse fails now, not after the conversion.
        if let name = spec.name, !name.isEmpty { _ = try LibraryNames.documentName(name) }
        try await filer.checkDestination(folder: spec.folder, owner: owner)
    }

    /// Alone on its store, a node whose converter for `type` cannot start would only queue the
    /// job to fail it: it refuses it now, with the cause. Sharing the store, another node may run it.
    func checkConverterStarts(for type: JobType) throws {
        guard !engine.configuration.sharesStore, let failure = engine.outages.failure(for: type) else { return }
        throw IntakeError(.noConverter, code: failure.code, "\(type.rawValue) jobs cannot run on this gateway now: \(failure.message)")
    }

    /// A job with several inputs: a `PDF_TO_PDF` job on nothing else, each input a format its
    /// own backend converts (and has a route to), each URL within the SSRF rules, and every file
    /// it names come with the request.
    func checkInputs(_ inputs: [JobInput], of spec: JobSpec, files: Int) throws {
        // Contradictions rather than malformed fields (422, like conflicting options): a merge's
        // type and file name are given by its inputs, whatever else the request says.
        guard spec.type == .pdfToPDF || spec.type == .scanToPDF else {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_type",
                "a job with \"inputs\" is PDF_TO_PDF (each input is converted, then all are merged) or SCAN_TO_PDF (page images, one page each), not \(spec.type.rawValue); leave \"type\" out for a merge"
            )
        }
        if spec.type == .scanToPDF, let index = inputs.firstIndex(where: { $0.type != .scanToPDF }) {
            throw IntakeError(
                .unsupportedFormat,
                code: "unsupported_format",
                "inputs[\(index)] (\(inputs[index].label)) is no page image, and a SCAN_TO_PDF job takes only page images (\(SourceFormats.image.sorted().joined(separator: ", "))); to combine documents and images, send a PDF_TO_PDF job"
            )
        }
        guard spec.url == nil, spec.originalFilename == nil, spec.documents == nil else {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_fields",
                "\"inputs\" lists every file and URL of the job: send no \"url\", \"original_filename\" or \"documents\" beside it"
            )
        }
        guard (1...JobInput.maxCount).contains(inputs.count) else {
            throw IntakeError(.invalid, code: "invalid_argument", "\"inputs\" holds 1 to \(JobInput.maxCount) files and URLs, not \(inputs.count)")
        }
        for (index, input) in inputs.enumerated() {
            guard engine.router.route(for: input.type) != nil else {
                throw IntakeError(
                    .noConverter,
                    code: "no_converter",
                    "inputs[\(index)] (\(input.label)) needs a \(input.type.rawValue) converter, and none is configured; route that type to a backend"
                )
            }
            try checkConverterStarts(for: input.type)
            switch input {
            case .url(let url):
                do {
                    _ = try urlCheck.checkSyntax(url)
                } catch {
                    throw IntakeError(.urlRefused, code: error.code, "inputs[\(index)]: \(error.message)")
                }
            case .file(let name):
                guard !name.isEmpty else {
                    throw IntakeError(
                        .invalid,
                        code: "filename_required",
                        "inputs[\(index)] names no file; give its name, e.g. {\"file\": \"report.docx\"}"
                    )
                }
                if let problem = SourceFormats.problem(with: name, for: input.type) {
                    throw IntakeError(.unsupportedFormat, code: "unsupported_format", "inputs[\(index)]: \(problem)")
                }
            }
        }
        let named = spec.inputFilenames.count
        guard named == files else {
            // A JSON create has no upload URL per file: files come in the multipart create.
            throw IntakeError(
                .invalid,
                code: files == 0 ? "files_required" : "invalid_argument",
                files == 0
                    ? "\(named == 1 ? "an input is a file" : "\(named) inputs are files"): send the job as one multipart/form-data create, each file a 'file' part and each page a 'url' field, in order"
                    : "the inputs name \(named) files but \(files) came"
            )
        }
    }

    func checkURL(_ url: String) throws(IntakeError) {
        do {
            _ = try urlCheck.checkSyntax(url)
        } catch {
            throw IntakeError(.urlRefused, code: error.code, error.message)
        }
    }

    /// The owner's limits, for a request about to send a body: an owner over them hears 429
    /// before uploading a file. A key that already created its job is a replay, answered with
    /// that job wherever the owner's limits stand. Takes a creation from the rate.
    public func admitBeforeBody(owner: String, key: HeldKey?) async throws {
        if key?.isReplay == true { return }
        try await takeCreation(owner: owner)
        if let limit = limits.activeJobsPerOwner {
            let active = try await engine.activeJobCount(owner: owner)
            if active >= limit { throw Self.tooMany(ActiveJobLimitReached(active: active, limit: limit)) }
        }
    }

    func takeCreation(owner: String) async throws {
        guard let perMinute = limits.creationsPerMinute, let wait = try await pacing.take(owner: owner, perMinute: perMinute) else { return }
        throw IntakeError(
            .rateLimited(retryAfterSeconds: wait),
            code: "rate_limited",
            "too many jobs created in the last minute (limit \(perMinute)); retry in \(wait) s"
        )
    }

    static func tooMany(_ reached: ActiveJobLimitReached) -> IntakeError {
        IntakeError(.tooManyJobs, code: reached.code, reached.message)
    }
}
