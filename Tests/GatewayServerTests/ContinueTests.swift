import Foundation
import GatewayTestSupport
import Testing

/// `Expect: 100-continue` through a real `pdfgate serve`, asked by the curl CLI as it asks for
/// every body over 1 MiB: the server says go on at once, so the upload does not wait for the
/// client's timer.
@Suite("Expect: 100-continue")
struct ContinueTests {
    @Test("a one-shot create that asks to continue gets 100 Continue at once and then its job")
    func continueIsAnswered() async throws {
        try await using(await ServerProcess()) { server in
            // curl would wait 20 s for the 100 before sending the body anyway; --max-time 10
            // makes a server that never answers it fail here.
            let answer = try await run(
                try which("curl"),
                [
                    "-sS", "-v", "--max-time", "10", "--expect100-timeout", "20", "-H", "Expect: 100-continue",
                    "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + Fixtures.pdf("many-pages.pdf"),
                    "-w", "\n%{http_code}", server.baseURL + "/v1/jobs?filename=many-pages.pdf",
                ]
            )
            #expect(answer.status == 0, "curl: \(answer.stderr.suffix(400))")
            #expect(answer.stderr.contains("HTTP/1.1 100 Continue"), "\(answer.stderr.suffix(800))")
            #expect(answer.stdout.hasSuffix("\n201"), "\(answer.stdout)")
            #expect(answer.stdout.contains("\"type\":\"PDF_TO_PDF\""), "\(answer.stdout)")
        }
    }
}
