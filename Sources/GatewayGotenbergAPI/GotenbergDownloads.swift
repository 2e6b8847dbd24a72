import Foundation
import GatewayHTTPClient
import GatewayHTTPServing
import GatewayJobModel
import GatewayURLSecurity

/// Gotenberg's `downloadFrom` field (`pkg/modules/api/context.go`): a JSON list of
/// `{"url", "extraHttpHeaders", "embedded", "field"}` whose files are fetched before the route
/// runs and join the form as if uploaded — as input files, or as `embeds`, `watermark` or `stamp`.
/// Each URL passes our SSRF rules and the connection is pinned to the address that was checked
/// (no redirect is followed); together they count against the upload limit. Failures are
/// Gotenberg's 400s in its words.
struct GotenbergDownloads: Sendable {
    let urlGuard: URLGuard
    let maxBytes: Int64
    let timeout: Duration

    struct Entry: Decodable {
        var url: String
        var extraHttpHeaders: [String: String]?
        var embedded: Bool?
        var field: String?
    }

    /// Adds every file `downloadFrom` lists to `form`, in order, as each arrives (so that one
    /// that fails leaves the others where the form's cleanup finds them).
    func fetch(into form: inout MultipartForm, staging: any InputStaging, trace: String) async throws {
        guard let text = form.fields["downloadFrom"], !text.isEmpty else { return }
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: Data(text.utf8))
        } catch {
            throw GotenbergError(.badRequest, "Invalid 'downloadFrom' form field value: expected a list of {\"url\", \"extraHttpHeaders\"} objects")
        }
        guard entries.count <= JobInput.maxCount else {
            throw GotenbergError(.badRequest, "Invalid 'downloadFrom' form field value: at most \(JobInput.maxCount) entries")
        }
        var total = form.files.reduce(Int64(0)) { $0 + $1.bytes }
        let client = HTTPClient(
            configuration: .init(
                connectTimeout: .seconds(10),
                totalTimeout: timeout,
                maxResponseFileBytes: max(0, maxBytes - total),
                proxy: .direct
            )
        )
        for (index, entry) in entries.enumerated() {
            let url = entry.url.trimmingCharacters(in: .whitespaces)
            guard !url.isEmpty else {
                throw GotenbergError(.badRequest, "Invalid 'downloadFrom' form field entry \(index): URL must be set")
            }
            let vetted: VettedURL
            do {
                vetted = try await urlGuard.vet(url)
            } catch {
                throw GotenbergError(.forbidden)
            }
            var headers = HTTPHeaders()
            for (name, value) in (entry.extraHttpHeaders ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard GotenbergWebhook.isHeader(name: name, value: value) else {
                    throw GotenbergError(.badRequest, "Invalid 'downloadFrom' form field entry \(index): '\(name)' is not a valid header")
                }
                headers.add(name, value)
            }
            headers.add("Gotenberg-Trace", trace)
            if let parent = GotenbergJobs.traceParent { headers.add("traceparent", parent.forOutboundCall) }
            let path = staging.incomingPath()
            let response: HTTPResponse
            do {
                response = try await client.execute(
                    HTTPRequest(method: "GET", url: url, headers: headers, resolve: vetted.curlResolve.map { [$0] } ?? []),
                    sink: .file(path: path)
                )
            } catch {
                staging.discardIncoming(path)
                throw GotenbergError(.badRequest, "Unable to download file from '\(url)': \(error)")
            }
            func refuse(_ message: String) -> GotenbergError {
                staging.discardIncoming(path)
                return GotenbergError(.badRequest, message)
            }
            guard response.status == 200 else { throw refuse("Unable to download file from '\(url)': got status: '\(response.status)'") }
            guard let disposition = response.header("Content-Disposition") else {
                throw refuse("No 'Content-Disposition' header from '\(url)'")
            }
            guard let name = ContentDisposition.filename(disposition), !name.isEmpty else {
                throw refuse("Invalid 'Content-Disposition' header '\(disposition)' from '\(url)': no filename")
            }
            total += response.bytesReceived
            guard total <= maxBytes else { throw refuse("the downloaded files exceed the upload limit of \(maxBytes) bytes") }
            let field: String? =
                switch entry.embedded == true ? "embedded" : entry.field ?? "" {
                case "embedded": "embeds"
                case "watermark": "watermark"
                case "stamp": "stamp"
                default: "files"
                }
            let file = MultipartForm.File(
                path: path,
                field: field,
                filename: (name as NSString).lastPathComponent,
                mediaType: response.header("Content-Type"),
                bytes: response.bytesReceived
            )
            form.entries.append(.file(form.files.count))
            form.files.append(file)
        }
    }
}
