import Foundation
import GatewayTestSupport
import Testing

/// Schemathesis (pinned in scripts/python-venv.sh) fuzzes the API from
/// openapi.yaml against a live `pdfgate serve` that requires tokens, every check on, with the
/// fixed seed and example count of schemathesis.toml; server and fuzzer share a network
/// namespace with only a loopback interface (scripts/fuzz-api.sh). What it found is in
/// HostileInputTests, one regression test each.
@Suite("the API under schemathesis")
struct APIFuzzTests {
    static let repository = (Fixtures.root as NSString).deletingLastPathComponent

    @Test("schemathesis with every check finds nothing, and the server stays up")
    func schemathesisFindsNothing() async throws {
        let result = try await run("/bin/bash", [Self.repository + "/scripts/fuzz-api.sh", builtProduct("pdfgate")])
        let summary = result.stdout.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(result.status == 0, "schemathesis found something (rerun: bash scripts/fuzz-api.sh):\n\(summary)\n\(result.stderr.suffix(2000))")
        // It really ran: every operation was tried, and thousands of cases passed.
        let spec = try String(contentsOfFile: Self.repository + "/openapi.yaml", encoding: .utf8)
        let operations = spec.matches(of: /\n\s+operationId:/).count
        #expect(operations > 20 && result.stdout.contains("\(operations) selected / \(operations) total"), "\(summary)")
        let passed = result.stdout.firstMatch(of: /(\d+) generated, (\d+) passed/).flatMap { Int($0.2) } ?? 0
        #expect(passed > 1000, "\(summary)")
    }

    @Test("header and path values with NUL, CR/LF or 64 KiB get an answer, and the server stays up")
    func hostileHeadersAndPaths() async throws {
        try await using(await ServerProcess(arguments: [])) { server in
            // Raw bytes on a socket: no HTTP library sends a NUL or a lone CR in a header.
            let script = #"""
                import socket, sys
                port = int(sys.argv[1])
                def send(raw):
                    s = socket.create_connection(("127.0.0.1", port), timeout=10)
                    s.sendall(raw)
                    data = b""
                    try:
                        while True:
                            chunk = s.recv(65536)
                            if not chunk: break
                            data += chunk
                            if b"\r\n\r\n" in data and (b"content-length: 0" in data.lower() or data.count(b"}") > 0): break
                    except socket.timeout:
                        pass
                    s.close()
                    return data.split(b"\r\n", 1)[0].decode() + " | " + data.split(b"\r\n\r\n", 1)[-1][:200].decode(errors="replace")
                big = "x" * 65536
                print(send(b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Big: " + big.encode() + b"\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /" + big.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Nul: a\x00b\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Cr: a\rb\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /v1/jobs%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /v1/jobs?x=" + (big * 3).encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                print(send(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                """#
            let result = try await run("/usr/bin/python3", ["-c", script, "\(server.port)"])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            try #require(lines.count == 7, "\(result.stdout) \(result.stderr)")
            // A 64 KiB header is an ordinary request (no auth on loopback): the jobs, as JSON.
            #expect(lines[0].hasPrefix("HTTP/1.1 200") && lines[0].contains("\"jobs\""), "\(lines[0])")
            // A 64 KiB path is a path nothing is at: the API's JSON 404.
            #expect(lines[1].hasPrefix("HTTP/1.1 404") && lines[1].contains("\"error\""), "\(lines[1])")
            // NUL or a bare CR in a header is not HTTP: the parser refuses it before any route, and
            // `RequestHeadRefusal` says so in the API's JSON.
            for line in lines[2...3] { #expect(line.hasPrefix("HTTP/1.1 400") && line.contains("\"malformed_request\""), "\(line)") }
            // An escaped NUL in a path is just a path: 404 as JSON.
            #expect(lines[4].hasPrefix("HTTP/1.1 404") && lines[4].contains("\"error\""), "\(lines[4])")
            // A 192 KiB URL is past the parser's 80 KiB head: 431 as JSON, not a bare 400.
            #expect(lines[5].hasPrefix("HTTP/1.1 431") && lines[5].contains("\"request_head_too_large\""), "\(lines[5])")
            #expect(lines[6].hasPrefix("HTTP/1.1 200"), "still up: \(lines[6])")
        }
    }
}
