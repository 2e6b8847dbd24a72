import Foundation
import GatewayConversionFormats
import GatewayHTTPServing
import GatewayJobModel
import Hummingbird
import Ink

/// Gotenberg's `/forms/chromium/convert/{html,markdown}`: an uploaded `index.html` printed by our
/// Chromium (sandboxed, loading nothing from the network), with `header.html` and `footer.html`
/// as its page header and footer; for Markdown, `index.html` is a template whose
/// `{{ toHTML "file.md" }}` becomes that file's HTML (Ink).
extension GotenbergController {
    func addChromiumFileRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/forms/chromium/convert/html") { request, context in try await self.convertHTML(request, context, markdown: false) }
        group.post("/forms/chromium/convert/markdown") { request, context in try await self.convertHTML(request, context, markdown: true) }
    }

    func convertHTML(_ request: Request, _ context: GatewayRequestContext, markdown: Bool) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form)
            var options = try Self.chromiumOptions(&fields, javaScript: settings.javaScript)
            let post = try Self.chromiumPostProcessing(&fields, form)
            let page = try uploadedPage(form, &fields, markdown: markdown, besides: ["header.html", "footer.html"])
            defer { page.discard() }
            try Self.headerAndFooter(of: form, into: &options)
            let spec = JobSpec(
                type: .docToPDF,
                originalFilename: page.filename,
                folder: request.headers[.pdfgateFolder],
                options: options,
                operations: post.all.isEmpty ? nil : post.all
            )
            return try await jobs.run(
                [.init(spec: spec, files: [page.path], name: Self.printedName(request), parts: post.makesParts)],
                owner: owner,
                secrets: JobSecrets()
            )
        }
    }

    /// What a form's page becomes: `index.html` alone, or with the files uploaded beside it an
    /// HTML bundle (`HTMLBundle`), which our Chromium serves from the page's own origin.
    struct UploadedPage {
        var path: String
        var filename: String
        /// A bundle made here, removed once the job took it (or did not).
        var made: (@Sendable () -> Void)?
        func discard() { made?() }
    }

    /// The form's `index.html`, ready to print: for Markdown, its template rendered. Collects
    /// what is missing with the form's other problems, then validates them all. The other files
    /// (but the Markdown pages, `besides` and the post-processing fields' own) go beside it.
    func uploadedPage(
        _ form: MultipartForm,
        _ fields: inout GotenbergFields,
        markdown: Bool,
        besides: Set<String> = []
    ) throws -> UploadedPage {
        // Gotenberg matches the name exactly but its extension case-insensitively.
        let index = form.files.first { file in
            let name = file.filename ?? ""
            return (name as NSString).deletingPathExtension == "index" && (name as NSString).pathExtension.lowercased() == "html"
        }
        if index == nil { fields.append("form file 'index.html' is required") }
        let pages = form.files.filter { (($0.filename ?? "") as NSString).pathExtension.lowercased() == "md" }
        if markdown, pages.isEmpty { fields.append("no form file found for extensions: [.md]") }
        try fields.validate()
        guard let index else { throw GotenbergError(.internalServerError) }
        // Gotenberg prints an upload from `file:///tmp/<uuid>/index.html`, and its Chromium
        // allow and deny lists judge that URL too: an operator's `^file:` rules keep their
        // reach. Ours is served from a made-up origin, so the lists are asked about Gotenberg's.
        let asGotenberg = "file:///tmp/\(UUID().uuidString.lowercased())/index.html"
        if intake.urlCheck.patterns.refusal(asGotenberg, for: .page) != nil { throw GotenbergError(.forbidden) }
        if markdown { try Self.render(index.path, pages: pages) }
        let assets = form.files.filter { file in
            file.path != index.path && !besides.contains(file.filename?.lowercased() ?? "")
                && !["watermark", "stamp", "embeds", "facturxXml"].contains(file.field ?? "")
        }
        guard !assets.isEmpty else { return UploadedPage(path: index.path, filename: "index.html") }
        let staging = intake.staging
        let bundle = staging.incomingPath()
        do {
            try HTMLBundle.pack(index: index.path, assets: assets.map { ($0.filename ?? "file", $0.path) }, to: bundle)
        } catch {
            staging.discardIncoming(bundle)
            throw GotenbergError(.internalServerError)
        }
        return UploadedPage(path: bundle, filename: "index.zip", made: { staging.discardIncoming(bundle) })
    }

    /// An uploaded file's text (a template, a header, a Markdown page).
    static func text(atPath path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// The template at `path` with every `{{ toHTML "name.md" }}` replaced by that file's HTML,
    /// written back in place. Names not uploaded fail it in Gotenberg's words.
    static func render(_ path: String, pages: [MultipartForm.File]) throws {
        let template = try text(atPath: path)
        let parser = MarkdownParser()
        var missing: [String] = []
        var rendered = ""
        var rest = Substring(template)
        while let match = rest.firstMatch(of: /\{\{-?\s*toHTML\s+"([^"]*)"\s*-?\}\}/) {
            rendered += rest[..<match.range.lowerBound]
            let name = String(match.1)
            if let page = pages.first(where: { $0.filename == name }) {
                rendered += parser.html(from: try text(atPath: page.path))
            } else {
                missing.append("'\(name)'")
            }
            rest = rest[match.range.upperBound...]
        }
        rendered += rest
        guard missing.isEmpty else {
            throw GotenbergError(.badRequest, "Markdown file(s) not found: " + missing.joined(separator: "\n"))
        }
        try Data(rendered.utf8).write(to: URL(fileURLWithPath: path))
    }
}
