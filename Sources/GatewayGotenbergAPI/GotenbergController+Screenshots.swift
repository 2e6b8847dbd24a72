import Foundation
import GatewayHTTPServing
import GatewayJobModel
import Hummingbird

/// Gotenberg's `/forms/chromium/screenshot/{url,html,markdown}`: the page as a PNG, JPEG or WebP,
/// a `SCREENSHOT` job of our engine (the same sandboxed Chromium, SSRF proxy and limits as a
/// print). The image is the answer and nothing else: the library files PDFs, so
/// `Pdfgate-Folder` is refused here rather than ignored.
extension GotenbergController {
    func addScreenshotRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/forms/chromium/screenshot/url") { request, context in try await self.screenshot(request, context, of: .url) }
        group.post("/forms/chromium/screenshot/html") { request, context in try await self.screenshot(request, context, of: .html) }
        group.post("/forms/chromium/screenshot/markdown") { request, context in try await self.screenshot(request, context, of: .markdown) }
    }

    enum ScreenshotSource { case url, html, markdown }

    func screenshot(_ request: Request, _ context: GatewayRequestContext, of source: ScreenshotSource) async throws -> Response {
        try await answering(request, context) { owner, form in
            if request.headers[.pdfgateFolder] != nil {
                throw GotenbergError(.badRequest, "the library files PDFs, not images: send no Pdfgate-Folder header with a screenshot")
            }
            var fields = GotenbergFields(form)
            var options = ConversionOptions()
            try Self.pageOptions(&fields, into: &options, javaScript: settings.javaScript)
            let screenshot = Self.screenshotOptions(&fields)
            var spec = JobSpec(type: .screenshot, options: options)
            spec.screenshot = screenshot
            switch source {
            case .url:
                guard let url = fields.string("url") else {
                    throw GotenbergError(.badRequest, "Invalid form data: form field 'url' is required")
                }
                try Self.refuseFileScheme(url)
                try fields.validate()
                spec.url = url
            case .html, .markdown:
                let page = try uploadedPage(form, &fields, markdown: source == .markdown)
                defer { page.discard() }
                spec.originalFilename = page.filename
                return try await jobs.run([.init(spec: spec, files: [page.path])], owner: owner, secrets: JobSecrets())
            }
            return try await jobs.run([.init(spec: spec, files: [])], owner: owner, secrets: JobSecrets())
        }
    }

    /// Gotenberg's screenshot fields (`FormDataChromiumScreenshotOptions`), its defaults where
    /// one is left out, its words for a bad one.
    static func screenshotOptions(_ fields: inout GotenbergFields) -> ScreenshotOptions {
        var options = ScreenshotOptions()
        let size = { (value: Int) in
            value < 1 ? "value is inferior to 1" : value > ScreenshotOptions.maxPixels ? "value is superior to \(ScreenshotOptions.maxPixels)" : nil
        }
        options.width = fields.int("width", check: size) ?? options.width
        options.height = fields.int("height", check: size) ?? options.height
        options.clip = fields.bool("clip") ?? options.clip
        options.selector = fields.string("selector")
        if let format = fields.string("format") {
            if let known = ScreenshotOptions.Format(rawValue: format) {
                options.format = known
            } else {
                fields.invalid("format", format, "wrong value, expected either 'png', 'jpeg' or 'webp'")
            }
        }
        options.quality = fields.int("quality") { $0 < 0 ? "value is negative" : $0 > 100 ? "value is superior to 100" : nil } ?? options.quality
        options.optimizeForSpeed = fields.bool("optimizeForSpeed") ?? options.optimizeForSpeed
        if let factor = fields.float("deviceScaleFactor") {
            if factor > 0 && factor <= 4 {
                options.deviceScaleFactor = factor
            } else {
                fields.invalid("deviceScaleFactor", String(factor), "value must be above 0 and at most 4")
            }
        }
        return options
    }
}
