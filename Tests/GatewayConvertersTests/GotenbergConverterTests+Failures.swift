import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayTestSupport
import GatewayURLSecurity
import Testing

@testable import GatewayRemoteConverters

/// How Gotenberg's failures become ours: refused inputs, error statuses, broken connections, hangs and bad answers.
extension GotenbergConverterTests {
    @Test func ebookIsRejectedWithoutCallingGotenberg() async throws {
        let calls = Locked(0)
        let server = try FakeHTTPServer { _, response in
            calls.update { $0 += 1 }
            try response.respond(status: 500)
        }
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.pdf("one-page.pdf"), as: "book.epub")
        let failure = await thrownFailure { try await converter(server).convert(job.request(.ebookToPDF, source), events: { _ in }) }
        #expect(failure?.kind == .rejected)
        #expect(failure?.message.contains("route EBOOK_TO_PDF to the local converter") == true)
        #expect(calls.value == 0)
    }

    struct StatusCase: Sendable, CustomTestStringConvertible {
        var status: Int
        var headers: [(String, String)] = []
        var body = ""
        var kind: FailureClass
        var code: String
        var retryAfter: Duration?
        var messageContains: String?
        var testDescription: String { "\(status) → \(kind.rawValue) \(code)" }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(
            status: 429,
            headers: [("Retry-After", "3")],
            body: "Too Many Requests",
            kind: .unavailable,
            code: "converter_busy",
            retryAfter: .seconds(3)
        ),
        StatusCase(status: 503, body: "Service Unavailable", kind: .unavailable, code: "converter_unavailable"),
        StatusCase(status: 500, body: "Internal Server Error", kind: .transient, code: "converter_error"),
        StatusCase(status: 502, kind: .transient, code: "converter_error"),
        StatusCase(status: 501, body: "Not Implemented", kind: .rejected, code: "not_supported"),
        StatusCase(
            status: 400,
            body: "  Invalid form data: form field 'url' is required\n",
            kind: .rejected,
            code: "conversion_rejected",
            messageContains: "Invalid form data: form field 'url' is required"
        ),
        StatusCase(
            status: 409,
            body: "Conflict: LibreOffice failed to process a document",
            kind: .rejected,
            code: "conversion_rejected",
            messageContains: "LibreOffice failed"
        ),
        StatusCase(status: 413, body: "Request Entity Too Large", kind: .rejected, code: "input_too_large"),
        StatusCase(status: 404, body: "Not Found", kind: .rejected, code: "converter_refused"),
    ]

    @Test(arguments: statusCases) func errorStatusesAreClassified(_ expected: StatusCase) async throws {
        let server = try FakeHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: expected.status, headers: expected.headers, text: expected.body)
        }
        let job = HTTPBackendJob()
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        }
        #expect(failure?.kind == expected.kind)
        #expect(failure?.code == expected.code)
        #expect(failure?.retryAfter == expected.retryAfter)
        if let text = expected.messageContains { #expect(failure?.message.contains(text) == true, "\(failure?.message ?? "")") }
        #expect(!job.outputExists, "an error body must not be left where the PDF goes")
    }

    @Test func errorTextIsBoundedAndFlattened() async throws {
        let huge = String(repeating: "bad input\n", count: 2000)
        let server = try FakeHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 400, text: huge)
        }
        let job = HTTPBackendJob()
        let thrown = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        }
        let failure = try #require(thrown)
        #expect(failure.message.count < 700)
        #expect(!failure.message.contains("\n"))
    }

    @Test func resetConnectionIsTransient() async throws {
        let server = try FakeHTTPServer { _, response in response.reset() }
        let job = HTTPBackendJob()
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        }
        #expect(failure?.kind == .transient)
        #expect(failure?.code == "converter_connection_lost")
    }

    @Test func refusedConnectionIsUnavailable() async throws {
        let server = try FakeHTTPServer { _, response in try response.respond(status: 200) }
        let base = server.baseURL
        server.stop()
        let converter = GotenbergConverter(configuration: .init(baseURL: base, http: httpTestTransport(), urlGuard: hostsTable))
        let job = HTTPBackendJob()
        let failure = await thrownFailure { try await converter.convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in }) }
        #expect(failure?.kind == .unavailable)
        #expect(failure?.code == "converter_unreachable")
        #expect(await !converter.isReady())
    }

    @Test func hangPastTheDeadlineTimesOutOnTime() async throws {
        let server = try FakeHTTPServer { _, response in response.hang() }
        let job = HTTPBackendJob()
        let start = ContinuousClock.now
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com"), timeout: .milliseconds(1200)), events: { _ in })
        }
        #expect(failure?.kind == .timedOut)
        #expect(secondsSince(start) < 2.2)
        #expect(!job.outputExists)
    }

    /// Below the low-speed limit the transfer is abandoned as stalled before the deadline: the
    /// peer may be fine on the next attempt, so it is transient, not timed out.
    @Test func bodyBelowTheLowSpeedLimitIsTransient() async throws {
        let server = try FakeHTTPServer { request, response in
            _ = try request.discardBody()
            try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: 100_000)
            try response.trickle(Array(repeating: Array("%PDF-".utf8), count: 40).flatMap { $0 }, piece: 5, every: .milliseconds(100))
        }
        let job = HTTPBackendJob()
        let start = ContinuousClock.now
        let failure = await thrownFailure {
            try await converter(server, lowSpeed: .init(bytesPerSecond: 10_000, duration: .seconds(1)))
                .convert(job.request(.urlToPDF, .url("https://example.com"), timeout: .seconds(3)), events: { _ in })
        }
        #expect(failure?.kind == .transient)
        #expect(failure?.code == "converter_too_slow")
        #expect(secondsSince(start) < 2.8)
        #expect(!job.outputExists)
    }

    @Test func successWithoutAPDFIsATransientInvalidOutput() async throws {
        let server = try FakeHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<html>proxy login</html>")
        }
        let job = HTTPBackendJob()
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        }
        #expect(failure?.kind == .transient)
        #expect(failure?.code == "invalid_output")
        #expect(failure?.message.contains("proxy login") == true)
        #expect(!job.outputExists)
    }

    @Test func truncatedPDFIsTransient() async throws {
        let server = try FakeHTTPServer { request, response in
            _ = try request.discardBody()
            try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: Int64(onePagePDF.count))
            try response.write(Array(onePagePDF.prefix(600)))
            response.close()
        }
        let job = HTTPBackendJob()
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com")), events: { _ in })
        }
        #expect(failure?.kind == .transient)
        #expect(failure?.code == "converter_connection_lost")
        #expect(!job.outputExists)
    }
}
