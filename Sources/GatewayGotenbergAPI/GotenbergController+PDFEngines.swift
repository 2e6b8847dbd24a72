import Foundation
import GatewayHTTPServing
import GatewayJobModel
import Hummingbird

/// Gotenberg's `/forms/pdfengines/*`: each a `PDF_TO_PDF` job of our engine with the matching
/// operations (qpdf and Ghostscript in the sandbox). The inputs are the form's PDFs in natural
/// order of their names (`page_2.pdf` before `page_10.pdf`), as Gotenberg sorts them; a route
/// that changes files in place answers each under its own name.
extension GotenbergController {
    func addPDFEngineRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/forms/pdfengines/merge") { request, context in try await self.merge(request, context) }
        group.post("/forms/pdfengines/split") { request, context in
            try await self.eachPDF(request, context, route: .init(requiresSplit: true)) { _, _ in [] }
        }
        group.post("/forms/pdfengines/flatten") { request, context in
            try await self.eachPDF(request, context) { _, _ in [.flatten] }
        }
        group.post("/forms/pdfengines/optimize") { request, context in
            try await self.eachPDF(request, context) { fields, _ in
                [.optimize(GotenbergPostProcessing.optimize(quality: GotenbergPostProcessing.imageQuality(&fields) ?? 80))]
            }
        }
        group.post("/forms/pdfengines/convert") { request, context in try await self.convertPDF(request, context) }
        group.post("/forms/pdfengines/metadata/write") { request, context in
            try await self.eachPDF(request, context, requiring: "metadata")
        }
        // An operator who set an operation's engines to pdftk alone gets pdftk's limits, in
        // Gotenberg's words (`PDFENGINES_*_ENGINES=pdftk`); our engines do the rest anyway.
        let pdftk = settings.pdftkOnly
        group.post("/forms/pdfengines/encrypt") { request, context in
            try await self.eachPDF(request, context) { fields, post in
                if !post.operations.contains(where: { $0.name == "encrypt" }) {
                    fields.append("a 'userPassword' or 'ownerPassword' is required")
                } else if pdftk.contains("encrypt"),
                    fields.string("ownerPassword") == nil || fields.string("ownerPassword") == fields.string("userPassword")
                {
                    fields.refusal = GotenbergError(
                        .badRequest,
                        "pdftk: both 'userPassword' and 'ownerPassword' must be provided and different. Consider switching to another PDF engine if this behavior does not work with your workflow"
                    )
                }
                return []
            }
        }
        for mark in ["watermark", "stamp"] {
            group.post(RouterPath("/forms/pdfengines/\(mark)")) { request, context in
                try await self.eachPDF(request, context, requiring: "\(mark)Source") { fields, _ in
                    if pdftk.contains(mark), fields.string("\(mark)Source") == "text" {
                        fields.refusal = GotenbergError(
                            .badRequest,
                            "The requested stamp source is not supported, or no PDF engine could process it. Valid sources: 'text', 'image', 'pdf'."
                        )
                    }
                    return []
                }
            }
        }
        group.post("/forms/pdfengines/rotate") { request, context in
            try await self.eachPDF(request, context, requiring: "rotateAngle") { fields, _ in
                // pdftk turns whole documents only; Gotenberg's engine then fails with a 500.
                if pdftk.contains("rotate"), fields.string("rotatePages") != nil { fields.refusal = GotenbergError(.internalServerError) }
                return []
            }
        }
        // The `embeds` files, attached to each PDF (the post-processing field every route takes).
        group.post("/forms/pdfengines/embed") { request, context in try await self.eachPDF(request, context) }
        // Gotenberg's Factur-X route: both fields are required, the rest is the post-processing's.
        group.post("/forms/pdfengines/factur-x") { request, context in
            try await self.eachPDF(request, context) { fields, post in
                if !post.operations.contains(where: { $0.name == "facturx" }) {
                    fields.append("'facturxConformanceLevel' and 'facturxXml' are both required")
                }
                return []
            }
        }
        group.post("/forms/pdfengines/bookmarks/write") { request, context in
            try await self.eachPDF(request, context, route: .init(writesBookmarks: true))
        }
        group.post("/forms/pdfengines/bookmarks/read") { request, context in
            try await self.read(request, context) { tools, file, work, deadline in
                try JSONEncoder().encode(try await tools.bookmarks(of: file.path, work: work, deadline: deadline))
            }
        }
        group.post("/forms/pdfengines/metadata/read") { request, context in
            try await self.read(request, context) { tools, file, work, deadline in
                let tags = try await tools.metadata(of: file.path, work: work, deadline: deadline)
                // ExifTool's FileName, as Gotenberg answered it before 8.30 (a name on disk,
                // dropped since): here the name the file was posted under, which leaks nothing.
                guard var object = try JSONSerialization.jsonObject(with: tags) as? [String: Any] else { return tags }
                object["FileName"] = file.filename ?? "document.pdf"
                return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            }
        }
    }

    /// `merge`: the PDFs into one, then the post-processing fields; the outline as given, or
    /// built from the inputs (`GotenbergMergeOutline`).
    func merge(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form)
            let post = try GotenbergPostProcessing(&fields, files: form.files, route: .init(mergesOutline: true))
            let outline = GotenbergMergeOutline(
                byFile: post.bookmarksByFile,
                autoIndex: fields.bool("autoIndexBookmarks") ?? false,
                titles: fields.bool("titleBookmarks") ?? false
            )
            let files = try Self.pdfInputs(form, &fields)
            try fields.validate()
            var operations = post.all
            if post.bookmarks == nil, outline.isNeeded {
                let deadline = ContinuousClock.now + intake.engine.configuration.timeout(for: JobSpec(type: .pdfToPDF))
                let built = try await outline.outline(
                    of: files,
                    inspector: inspector,
                    tools: intake.engine.tools,
                    work: intake.staging.incomingPath(),
                    deadline: deadline
                )
                do {
                    try PDFBookmark.check(built, field: "bookmarks")
                } catch {
                    throw GotenbergError(
                        .badRequest,
                        "Invalid form data: the merged outline is too large: \((error as? OperationError)?.message ?? "\(error)")"
                    )
                }
                if !built.isEmpty { operations.insert(.bookmarks(built), at: 0) }
            }
            let spec = JobSpec(
                type: .pdfToPDF,
                folder: request.headers[.pdfgateFolder],
                operations: operations.isEmpty ? nil : operations,
                inputs: files.map { .file($0.filename ?? "document.pdf") }
            )
            return try await jobs.run([.init(spec: spec, files: files.map(\.path), parts: post.makesParts)], owner: owner, secrets: JobSecrets())
        }
    }

    /// `convert`: PDF/A and/or PDF/UA of each PDF. One answers under its job's name, several under their own.
    func convertPDF(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form)
            let files = try Self.pdfInputs(form, &fields)
            let pdfa = try GotenbergPostProcessing.pdfa(fields)
            let problemsBefore = fields.problems.count
            let pdfua = fields.bool("pdfua") ?? false
            // Only of a form that gave neither: a `pdfua` that did not parse is its own problem.
            if !files.isEmpty, pdfa == nil, !pdfua, fields.problems.count == problemsBefore {
                fields.append("either 'pdfa' or 'pdfua' form fields must be provided")
            }
            try fields.validate()
            let planned = files.map { file in
                let spec = JobSpec(
                    type: .pdfToPDF,
                    originalFilename: file.filename,
                    folder: request.headers[.pdfgateFolder],
                    // PDF/UA as Gotenberg makes it: LibreOffice re-exports the PDF, PDF/A in the same pass.
                    operations: pdfua ? [.pdfua(pdfa.map(PDFOperation.PDFAPart.init))] : pdfa.map { [.pdfa(PDFOperation.PDFAPart($0))] }
                )
                return GotenbergJobs.Planned(spec: spec, files: [file.path], name: files.count == 1 ? nil : file.filename)
            }
            return try await jobs.run(planned, owner: owner, secrets: JobSecrets())
        }
    }

    /// The routes that change each PDF on its own: the post-processing fields (`requiring` one
    /// of them) plus what `route` adds, each file a job answered under its own name.
    func eachPDF(
        _ request: Request,
        _ context: GatewayRequestContext,
        requiring required: String? = nil,
        route: GotenbergPostProcessing.Route = .init(),
        operations: @escaping @Sendable (inout GotenbergFields, GotenbergPostProcessing) -> [PDFOperation] = { _, _ in [] }
    ) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form)
            if let required, fields.string(required) == nil { fields.append("form field '\(required)' is required") }
            let post = try GotenbergPostProcessing(&fields, files: form.files, route: route)
            let own = operations(&fields, post)
            let files = try Self.pdfInputs(form, &fields)
            try fields.validate()
            let planned = files.map { file in
                let all = own + post.all(for: file.filename)
                let spec = JobSpec(
                    type: .pdfToPDF,
                    originalFilename: file.filename,
                    folder: request.headers[.pdfgateFolder],
                    operations: all.isEmpty ? nil : all
                )
                return GotenbergJobs.Planned(spec: spec, files: [file.path], name: file.filename, parts: post.makesParts)
            }
            return try await jobs.run(planned, owner: owner, secrets: JobSecrets())
        }
    }

    /// `metadata/read` and `bookmarks/read`: each PDF read in the sandbox (ExifTool, qpdf) by
    /// the deadline of a PDF job; the answer is a JSON object by file name. A read makes no
    /// document, so it is no job: nothing is queued, filed or kept.
    func read(
        _ request: Request,
        _ context: GatewayRequestContext,
        _ reading: @escaping @Sendable (any PDFOperator, MultipartForm.File, String, ContinuousClock.Instant) async throws -> Data
    ) async throws -> Response {
        try await receiving(request, context) { _, form in
            var fields = GotenbergFields(form)
            let files = try Self.pdfInputs(form, &fields)
            try fields.validate()
            guard let tools = intake.engine.tools else {
                throw GotenbergError(.serviceUnavailable, "this node has no PDF tools (qpdf, ExifTool) to read documents with")
            }
            let deadline = ContinuousClock.now + intake.engine.configuration.timeout(for: JobSpec(type: .pdfToPDF))
            var answer: [String: Any] = [:]
            for file in files {
                let name = file.filename ?? "document.pdf"
                do {
                    let data = try await reading(tools, file, intake.staging.incomingPath(), deadline)
                    answer[name] = try JSONSerialization.jsonObject(with: data)
                } catch let failure as JobFailure {
                    throw GotenbergError.from(failure, name: name)
                }
            }
            let body = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .withoutEscapingSlashes])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// The form's PDFs in Gotenberg's order: natural order of their file names.
    static func pdfInputs(_ form: MultipartForm, _ fields: inout GotenbergFields) throws(GotenbergError) -> [MultipartForm.File] {
        try inputs(form, accepting: ["pdf"], &fields).sorted {
            ($0.filename ?? "").compare($1.filename ?? "", options: [.numeric]) == .orderedAscending
        }
    }
}
