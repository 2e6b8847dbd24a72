import Crypto
import Foundation
import GatewayCore
import GatewayGotenbergAPI
import GatewayHTTPServing
import HTTPTypes
import Hummingbird

/// The web page: `/` and its files under `/ui/`, embedded in the binary. The page
/// speaks only the public v1 API, so it needs nothing here but its bytes and the headers that
/// keep it safe: a strict Content-Security-Policy (no inline script or style, nothing from
/// another origin), no framing, no sniffing. `/` is revalidated with an ETag on every load; it
/// names its files under `/ui/VERSION/`, a digest of them all, which never changes content and
/// is cached for good, so a reload asks for one file, not twenty. The modules import each other
/// by relative paths, which stay under the same version.
struct WebController: Sendable {
    let assets: WebAssets
    /// Gotenberg's routes are mounted at `/` too: a client that does not ask for HTML (an API
    /// client, a probe) gets Gotenberg's answer there, a browser the page.
    var gotenbergRoot = false
    /// Gotenberg's trace header, on its answer at `/` as on its other routes.
    var gotenbergTraceHeader: HTTPField.Name = .gotenbergTrace
    /// Gotenberg's Basic auth over its answer at `/`, as there (the page asks for credentials itself).
    var gotenbergAuth: AuthMiddleware?

    func addRoutes(to router: Router<GatewayRequestContext>) {
        router.on("/", method: .get) { request, context in
            if gotenbergRoot, !(request.headers[.accept] ?? "").lowercased().contains("text/html") {
                let answer: @Sendable (Request, GatewayRequestContext) async throws -> Response = { request, _ in
                    var answer = GotenbergController.rootResponse()
                    answer.headers[gotenbergTraceHeader] = GotenbergTraceMiddleware.trace(of: request, header: gotenbergTraceHeader)
                    return answer
                }
                guard let gotenbergAuth else { return try await answer(request, context) }
                return try await gotenbergAuth.handle(request, context: context, next: answer)
            }
            var page = try self.serve("index.html", request)
            if gotenbergRoot { page.headers[.vary] = "Accept" }
            return page
        }
        // One parameter name for the first segment: the router keeps one per place in a path.
        router.on("/ui/:segment", method: .get) { request, context in
            try self.serve(try context.parameters.require("segment"), request)
        }
        router.on("/ui/:segment/:file", method: .get) { request, context in
            // Another version's name (a page loaded before an upgrade) gets today's file, revalidated.
            let current = try context.parameters.require("segment") == assets.version
            return try self.serve(try context.parameters.require("file"), request, forGood: current)
        }
    }

    private func serve(_ name: String, _ request: Request, forGood: Bool = false) throws -> Response {
        guard let asset = try assets.asset(named: name) else {
            throw APIError(.notFound, "not_found", "the web page has no file '\(name)'; open / for the page")
        }
        var headers = PageSecurity.headers
        headers[.eTag] = asset.etag
        headers[.cacheControl] = forGood ? "public, max-age=31536000, immutable" : "no-cache"
        if let seen = request.headers[.ifNoneMatch],
            seen.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}

/// The page's files: the embedded copies, or, for someone working on the page, the files of a
/// directory read on every request (`ServerConfiguration.webRoot`, `PDFGATE_WEB_ROOT`), so a
/// change shows on reload without a rebuild.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String

        init(bytes: [UInt8], name: String) {
            self.bytes = bytes
            contentType = WebAssets.contentType(of: name)
            etag = "\"" + hexString(SHA256.hash(data: bytes).prefix(12)) + "\""
        }
    }

    private let embedded: [String: Asset]
    private let directory: String?
    /// The path segment the page names its files under: a digest of them all. Nil while the
    /// files are read from a directory, which change without a new version.
    let version: String?

    init(directory: String?) {
        self.directory = directory
        // The page's ES modules, one per part of the page; each one here is also embedded by
        // Package.swift, and a test asks for every file of the Web directory.
        let files: [String: [UInt8]] = [
            "index.html": PackageResources.index_html, "style.css": PackageResources.style_css,
            "favicon.svg": PackageResources.favicon_svg, "app.js": PackageResources.app_js, "api.js": PackageResources.api_js,
            "dom.js": PackageResources.dom_js, "dialogs.js": PackageResources.dialogs_js, "notice.js": PackageResources.notice_js,
            "convert.js": PackageResources.convert_js, "convert-options.js": PackageResources.convert_options_js,
            "convert-upload.js": PackageResources.convert_upload_js, "convert-jobwatch.js": PackageResources.convert_jobwatch_js,
            "convert-job-item.js": PackageResources.convert_job_item_js,
            "library.js": PackageResources.library_js, "library-state.js": PackageResources.library_state_js,
            "library-tree.js": PackageResources.library_tree_js, "library-folders.js": PackageResources.library_folders_js,
            "library-list.js": PackageResources.library_list_js, "library-rows.js": PackageResources.library_rows_js,
            "library-search.js": PackageResources.library_search_js, "library-actions.js": PackageResources.library_actions_js,
            "library-details.js": PackageResources.library_details_js,
        ]
        var assets = files.reduce(into: [String: Asset]()) { $0[$1.key] = Asset(bytes: $1.value, name: $1.key) }
        if directory == nil {
            let version = assets.keys.sorted().filter { $0 != "index.html" }.map { assets[$0]!.etag }.joined()
            let digest = hexString(SHA256.hash(data: Array(version.utf8)).prefix(6))
            let page = String(decoding: PackageResources.index_html, as: UTF8.self).replacingOccurrences(of: "\"/ui/", with: "\"/ui/\(digest)/")
            assets["index.html"] = Asset(bytes: Array(page.utf8), name: "index.html")
            self.version = digest
        } else {
            self.version = nil
        }
        embedded = assets
    }

    func asset(named name: String) throws -> Asset? {
        guard embedded[name] != nil else { return nil }  // only the page's own names, never a path
        guard let directory else { return embedded[name] }
        let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
        return Asset(bytes: [UInt8](data), name: name)
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
