import Foundation
import GatewayCore
import GatewayEngine
import GatewayJobModel
import GatewayLibraryModel
import GatewayWire
import Hummingbird

/// Every error the API answers: a status, a stable code and a sentence that says what to do,
/// as `{"error": code, "error_message": message}` (DESIGN §3).
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try WireJSON.encoder().encode(ErrorJSON(error: code, errorMessage: message))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// 429 with the `Retry-After` a client should honour.
    package static func tooMany(_ code: String, _ message: String, retryAfter seconds: Int) -> APIError {
        var headers = HTTPFields()
        headers[.retryAfter] = String(max(1, seconds))
        return APIError(.tooManyRequests, code, message, headers: headers)
    }

    /// 503 with the `Retry-After` openapi.yaml promises on every 503 of the API.
    package static func unavailable(_ code: String, _ message: String, retryAfter seconds: Int = 5) -> APIError {
        var headers = HTTPFields()
        headers[.retryAfter] = String(max(1, seconds))
        return APIError(.serviceUnavailable, code, message, headers: headers)
    }

    /// Maps what the domain throws to statuses; unknown errors become a 500 that hides internals.
    package static func from(_ error: any Error) -> APIError {
        if !(error is APIError), DiskFull.matches(error) { return APIError(.insufficientStorage, DiskFull.code, DiskFull.message) }
        switch error {
        case let error as APIError:
            return error
        case let error as LibraryError:
            let status: HTTPResponse.Status =
                switch error.kind {
                case .documentNotFound, .folderNotFound: .notFound
                case .nameConflict, .folderNotEmpty: .conflict
                case .invalidMove: .conflict
                case .invalidName, .invalidPath, .invalidSort, .invalidArgument: .badRequest
                // Well-formed, just not one this server issued (or one from before a restart of
                // its keys): like the other "cannot use this value" answers, 422.
                case .invalidCursor, .invalidSyncToken: .unprocessableContent
                // The journal no longer reaches back that far (as CloudKit's change tokens
                // expire): gone for good, start over without a token.
                case .syncTokenExpired: .gone
                case .preconditionFailed: .preconditionFailed
                case .idTaken: .conflict
                // Any text is a query the schema allows; one with nothing to look for (only
                // punctuation, only exclusions) is well-formed but unusable, like a bad cursor.
                case .invalidQuery: .unprocessableContent
                case .storage: .internalServerError
                case .storeBusy, .storageUnavailable: .serviceUnavailable
                }
            if status == .serviceUnavailable { return .unavailable(error.code, error.message) }
            return APIError(status, error.code, error.message)
        case let error as OptionsError:
            return APIError(error.kind == .conflicting ? .unprocessableContent : .badRequest, error.code, error.message)
        case let error as IntakeError:
            switch error.kind {
            case .invalid: return APIError(.badRequest, error.code, error.message)
            case .unsupportedFormat: return APIError(.unsupportedMediaType, error.code, error.message)
            case .urlRefused, .idempotencyKeyReused, .conflictingOptions: return APIError(.unprocessableContent, error.code, error.message)
            case .noConverter: return .unavailable(error.code, error.message)
            case .rateLimited(let seconds): return .tooMany(error.code, error.message, retryAfter: seconds)
            case .tooManyJobs: return .tooMany(error.code, error.message, retryAfter: 5)
            case .idempotencyKeyInProgress: return APIError(.conflict, error.code, error.message)
            case .idempotencyJobGone: return APIError(.notFound, error.code, error.message)
            }
        case let error as OperationError:
            return APIError(error.kind == .invalid ? .badRequest : .unprocessableContent, error.code, error.message)
        case let error as StagingError:
            switch error.kind {
            case .inputExists: return APIError(.conflict, error.code, error.message)
            case .storage: return APIError(.internalServerError, error.code, error.message)
            case .unavailable: return .unavailable(error.code, error.message, retryAfter: 10)
            }
        case let error as JobTransitionError:
            switch (error.status, error.event) {
            case (.created, .submitted):
                return APIError(.conflict, "upload_missing", "nothing has been uploaded yet: PUT the file to the job's upload URL, then submit")
            case (_, .uploaded):
                return APIError(.conflict, "already_uploaded", "this job's file has already been uploaded; an upload URL works once")
            default:
                return APIError(.conflict, error.code, error.message)
            }
        case let error as InspectionError:
            return APIError(.unprocessableContent, error.code, error.message)
        case let error as JobStoreError:
            switch error.code {
            // A cursor this server did not issue (see `.invalidCursor`).
            case "invalid_cursor": return APIError(.unprocessableContent, error.code, error.message)
            case "job_not_found": return APIError(.notFound, error.code, error.message)
            // A row the store cannot read is the server's fault, not the client's.
            default: return APIError(.internalServerError, error.code, error.message)
            }
        case let error as HTTPError:
            return APIError(error.status, "http_\(error.status.code)", error.body ?? error.status.reasonPhrase)
        case let error as any GatewayError:
            return APIError(.badRequest, error.code, error.message)
        default:
            return APIError(.internalServerError, "internal_error", "the server failed unexpectedly; the log has the details")
        }
    }
}

/// An error that writes its own answer, in a shape its protocol's clients read (WebDAV's
/// `DAV:error` XML), still with a stable code and a message; `ErrorMiddleware` passes it through.
package protocol SelfDescribingError: HTTPResponseError {}

/// Turns every thrown error into the JSON error shape, and logs the unexpected ones.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any SelfDescribingError {
            return try error.response(from: request, context: context)
        } catch {
            let apiError = APIError.from(error)
            if apiError.status == .internalServerError { Self.logUnexpected(error, request, context) }
            return try apiError.response(from: request, context: context)
        }
    }
}

extension RouterMiddleware {
    /// An error no rule answers (a 500): the log gets all of it, the client only that it happened.
    package static func logUnexpected(_ error: any Error, _ request: Request, _ context: some RequestContext) {
        context.logger.error("request.failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
    }
}

extension HTTPResponse.Status {
    /// 507 (RFC 4918): the store has no room for what the request would write.
    package static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
