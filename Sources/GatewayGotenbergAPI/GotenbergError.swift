import Foundation
import GatewayHTTPServing
import GatewayJobModel
import HTTPTypes
import Hummingbird

/// An answer of Gotenberg's routes that is not a file: `text/plain; charset=UTF-8`, the status
/// and words Gotenberg 8 uses (`pkg/modules/api/middlewares.go`, `ParseError`), so a client
/// that matches on them keeps working.
struct GotenbergError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// The reason phrase alone, as Go's `http.StatusText` gives it.
    init(_ status: HTTPResponse.Status) { self.init(status, status.reasonPhrase) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "text/plain; charset=UTF-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: message)))
    }

    static let timedOut = GotenbergError(
        .serviceUnavailable,
        "The request exceeded the time limit. Increase it with --api-timeout, or reduce the workload."
    )

    /// What a refusal of ours (an `APIError` from the intake, the limits, the body reader) is in
    /// Gotenberg's terms: its status with Gotenberg's reason phrase, our message kept where
    /// Gotenberg itself explains (a 400, a 429) so the client learns what to fix.
    static func from(_ error: any Error) -> GotenbergError {
        switch error {
        case let error as GotenbergError: return error
        case let failed as GotenbergJobFailed: return from(failed.job)
        default:
            let api = APIError.from(error)
            // Gotenberg's deny lists answer 403 (`ErrFiltered`); our SSRF rules are its deny list.
            if api.code == "url_forbidden" { return GotenbergError(.forbidden) }
            switch api.status {
            case .badRequest, .unsupportedMediaType, .unprocessableContent:
                return GotenbergError(.badRequest, api.message)
            case .tooManyRequests, .serviceUnavailable, .insufficientStorage:
                var headers = HTTPFields()
                headers[.retryAfter] = api.headers[.retryAfter]
                return GotenbergError(api.status, api.message, headers: headers)
            case .contentTooLarge: return GotenbergError(.contentTooLarge)
            case .unauthorized: return GotenbergError(.unauthorized, "Unauthorized", headers: [.wwwAuthenticate: "Basic realm=\"pdfgate\""])
            case .notFound: return GotenbergError(.notFound, api.message)
            default: return GotenbergError(api.status)
            }
        }
    }

    /// A job that did not succeed: a deadline is Gotenberg's 503, a document that cannot be
    /// read or opened is its 400 with its words, a cancel (the client is gone) its 499.
    static func from(_ job: Job) -> GotenbergError {
        guard let failure = job.state.failure else {
            return GotenbergError(HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"), "Client Closed Request")
        }
        return from(failure, name: job.spec.originalFilename ?? job.spec.url ?? "document", options: job.spec.options)
    }

    /// A failure of the work on the document called `name`, a job's or a read's: Gotenberg's
    /// status and words (`pkg/modules/chromium/routes.go`, `handleChromiumError`), with what the
    /// tool said (`JobFailure.detail`) where Gotenberg's words carry it.
    static func from(_ failure: JobFailure, name: String, options: ConversionOptions = ConversionOptions()) -> GotenbergError {
        let detail = failure.detail ?? failure.message
        switch failure.code {
        case "page_http_status": return GotenbergError(.conflict, "Invalid HTTP status code from the main page: \(detail)")
        case "resource_http_status": return GotenbergError(.conflict, "Invalid HTTP status code from resources:\n\(detail)")
        case "page_console_exception": return GotenbergError(.conflict, "Chromium console exceptions:\n\(detail)")
        case "resource_load_failed": return GotenbergError(.conflict, "Chromium failed to load resources: \(detail)")
        case "page_load_failed": return GotenbergError(.badRequest, "Chromium returned \(detail)")
        case "page_ranges_beyond_document" where options.browser.pageRanges != nil:
            return GotenbergError(.badRequest, "The page ranges '\(options.browser.pageRanges ?? "")' (nativePageRanges) exceeds the page count")
        case "invalid_wait_for_expression":
            return GotenbergError(
                .badRequest,
                "The expression '\(options.browser.waitForExpression ?? "")' (waitForExpression) returned an exception or undefined"
            )
        case "invalid_wait_for_selector":
            return GotenbergError(
                .badRequest,
                "The selector '\(options.browser.waitForSelector ?? "")' (waitForSelector) returned an exception or undefined"
            )
        default: break
        }
        if failure.kind == .timedOut { return timedOut }
        switch failure.code {
        case "password_protected":
            return GotenbergError(.badRequest, "The document '\(name)' is password-protected. Provide its password in the 'password' form field.")
        case "wrong_password":
            return GotenbergError(.badRequest, "The password for the document '\(name)' is incorrect. Check the 'password' form field.")
        case "url_forbidden", "url_blocked": return GotenbergError(.forbidden)
        default:
            switch failure.kind {
            case .rejected:
                return GotenbergError(.badRequest, failure.message)
            case .cannotStart, .unavailable:
                return GotenbergError(.serviceUnavailable, failure.message)
            case .transient, .timedOut:
                return GotenbergError(.internalServerError)
            }
        }
    }
}

/// Gotenberg's routes answer every refusal in Gotenberg's words, those of the middleware before
/// them (credentials) included.
package struct GotenbergErrorMiddleware: RouterMiddleware {
    package typealias Context = GatewayRequestContext

    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            // Answered here: the router's own error middleware would make it our JSON.
            let refusal = GotenbergError.from(error)
            if refusal.status == .internalServerError { Self.logUnexpected(error, request, context) }
            return try refusal.response(from: request, context: context)
        }
    }
}
