import Foundation
import GatewayTestSupport
import Testing

/// Whole jobs, not single converter calls, against a Gotenberg stand-in on 127.0.0.1 that
/// misbehaves on purpose: a real `pdfgate serve` routes office jobs to it with the default
/// retry policy, and every job must end — SUCCEEDED after retries, or FAILED with a reason
/// that says what went wrong — within its deadline plus a little, with the library holding
/// exactly the documents of the jobs that succeeded.
@Suite("Jobs through a misbehaving converter")
struct MisbehavingConverterJobTests {
    enum Misbehaviour: String, CaseIterable, Sendable {
        case unavailableTwice, busyWithRetryAfter, resetOnce, alwaysError, hangs, slowBody, notAPDF, truncatedPDF

        /// What the job must end as, and a word its failure must contain.
        var expected: (status: String, mentions: String?) {
            switch self {
            case .unavailableTwice, .busyWithRetryAfter, .resetOnce: ("SUCCEEDED", nil)
            case .alwaysError: ("FAILED", "500")
            case .hangs, .slowBody: ("FAILED", "deadline")
            case .notAPDF: ("FAILED", "proxy login")
            case .truncatedPDF: ("FAILED", "connection")
            }
        }
    }

    static let deadline = 5.0

    @Test(arguments: Misbehaviour.allCases)
    func everyJobEndsWithinItsDeadline(_ misbehaviour: Misbehaviour) async throws {
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        let conversions = Locked(0)
        let gotenberg = try LoopbackHTTPServer { request, response in
            if request.path == "/health" {
                try response.respond(status: 200, headers: [("Content-Type", "application/json")], text: #"{"status":"up"}"#)
                return
            }
            _ = try request.discardBody()
            let attempt = conversions.update { count -> Int in
                count += 1
                return count
            }
            switch misbehaviour {
            case .unavailableTwice where attempt <= 2:
                try response.respond(status: 503, text: "Service Unavailable")
            case .busyWithRetryAfter where attempt == 1:
                try response.respond(status: 429, headers: [("Retry-After", "1")], text: "Too Many Requests")
            case .resetOnce where attempt == 1:
                response.reset()
            case .alwaysError:
                try response.respond(status: 500, text: "Internal Server Error")
            case .hangs:
                response.hang()
            case .slowBody:
                try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: Int64(pdf.count))
                try response.trickle(pdf, every: .milliseconds(500))
            case .notAPDF:
                try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<html>proxy login</html>")
            case .truncatedPDF:
                try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: Int64(pdf.count))
                try response.write(Array(pdf.prefix(600)))
                response.close()
            default:
                try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: pdf)
            }
        }
        defer { gotenberg.stop() }
        let server = try await ServerProcess(arguments: ["--routes", "DOC_TO_PDF=gotenberg=\(gotenberg.baseURL)"])
        let client = APIClient(base: server.baseURL)

        let start = ContinuousClock.now
        let created = try await client.oneShot("sample.docx", query: "&timeout_seconds=\(Self.deadline)")
        let id = try #require(created.string("job_id"), "create: \(created.text)")
        let job = try await client.ended(id, within: .seconds(Self.deadline + 10) - start.duration(to: .now))
        let elapsed = start.duration(to: .now)
        let (status, mentions) = misbehaviour.expected

        #expect(job.string("status") == status, "\(misbehaviour): \(job.text)")
        #expect(elapsed < .seconds(Self.deadline + 3), "\(misbehaviour) took \(elapsed) for a \(Self.deadline) s deadline")
        if let mentions {
            let message = job.string("error_message") ?? ""
            #expect(message.localizedCaseInsensitiveContains(mentions), "\(misbehaviour): the reason should mention '\(mentions)': \(message)")
        }
        if status == "FAILED", let code = job.string("error") {
            // The failure is counted by an observer of the job's change, which may run just
            // after the poll that saw it.
            let metrics = try await until("the failure \(code) is counted", within: .seconds(5), poll: .milliseconds(100)) {
                let text = try await client.get("/metrics").text
                return text.contains(#"code="\#(code)"} 1"#) ? text : nil
            }
            #expect(
                metrics.contains(#"pdfgate_job_failures_total{backend="gotenberg",kind="#) && metrics.contains(#"code="\#(code)"} 1"#),
                "\(metrics)"
            )
        }
        let documents = try await client.get("/v1/documents?recursive=true")
        #expect((documents.json["documents"] as? [Any])?.count == (status == "SUCCEEDED" ? 1 : 0), "\(documents.text)")
        await server.stop()
    }
}
