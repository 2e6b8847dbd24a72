import Foundation
import GatewayAssembly
import GatewayHTTPClient
import GatewayServer
import GatewayTestSupport
import Synchronization
import Testing

@Suite("Job API over sockets: events, webhooks, concurrency")
struct JobAPITests {
    /// Waits for a job to reach a terminal status by polling.
    static func finish(_ client: APIClient, _ id: String, timeout: Double = 90) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        return try await until("job \(id) ends; last: \(last)", within: .seconds(timeout), poll: .milliseconds(200)) {
            last = try await client.get("/v1/jobs/\(id)").json
            return ["SUCCEEDED", "FAILED", "CANCELLED"].contains(last["status"] as? String ?? "") ? last : nil
        }
    }

    @Test("SSE: snapshot first, monotonic ids, Last-Event-ID resumes, ends after the terminal event")
    func eventsResume() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let oneShot = try await client.oneShot("sample.docx")
            let id = try #require(oneShot.string("job_id"))
            // Streamed live from QUEUED: the answer completes only because the stream ends itself.
            let live = try await client.get("/v1/jobs/\(id)/events")
            #expect(live.headers["Content-Type"]?.hasPrefix("text/event-stream") == true)
            let events = Self.parse(live.text)
            #expect(events.count >= 2, "\(live.text)")
            let ids = events.map(\.id)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "monotonic ids: \(ids)")
            #expect(events.last?.status == "SUCCEEDED")

            // Resuming after the next-to-last event yields only the last one.
            let resumeFrom = ids[ids.count - 2]
            let resumed = Self.parse(try await client.get("/v1/jobs/\(id)/events", headers: [("Last-Event-ID", String(resumeFrom))]).text)
            #expect(resumed.map(\.id) == [ids.last!])
            // Having seen everything, the stream is empty and ends at once.
            let none = Self.parse(try await client.get("/v1/jobs/\(id)/events", headers: [("Last-Event-ID", String(ids.last!))]).text)
            #expect(none.isEmpty)
            await server.stop()
        }
    }

    static func parse(_ text: String) -> [(id: Int, status: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var id: Int?
            var status: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("data: "),
                    let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
                {
                    status = json["status"] as? String
                }
            }
            guard let id, let status else { return nil }
            return (id, status)
        }
    }

    @Test("webhook: the terminal state is POSTed to callback_url with a valid Standard Webhooks signature")
    func webhook() async throws {
        let received = Mutex<[(headers: [String: String], body: [UInt8])]>([])
        let receiver = try LoopbackHTTPServer { request, response in
            let body = try request.readBody()
            var headers: [String: String] = [:]
            for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] { headers[name] = request.header(name) }
            received.withLock { $0.append((headers, body)) }
            try response.respond(status: 204)
        }
        defer { receiver.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let client = APIClient(base: server.baseURL)
            let created = try await client.oneShot(
                "sample.docx",
                query: "&callback_url=" + receiver.url("/hook").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            )
            #expect(created.status == 201, "\(created.text)")
            _ = try await Self.finish(client, try #require(created.string("job_id")))
            let delivery = try await until("the webhook reaches the receiver", within: .seconds(10)) { received.withLock { $0.first } }
            let secret = try await run(builtProduct("pdfgate"), ["token", "webhook-secret", "--store", server.store]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let signer = WebhookSigner(secret: secret)
            let id = try #require(delivery.headers["webhook-id"])
            let timestamp = try #require(delivery.headers["webhook-timestamp"].flatMap { Int64($0) })
            #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 120)
            #expect(signer.verify(id: id, timestamp: timestamp, body: Data(delivery.body), header: delivery.headers["webhook-signature"] ?? ""))
            #expect(
                !WebhookSigner(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())
                    .verify(id: id, timestamp: timestamp, body: Data(delivery.body), header: delivery.headers["webhook-signature"] ?? "")
            )
            let payload = try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any]
            #expect(payload?["type"] as? String == "job.succeeded")
            #expect((payload?["data"] as? [String: Any])?["status"] as? String == "SUCCEEDED")
            await server.stop()
        }
    }

    @Test("1,000 concurrent job creations: none lost, none duplicated")
    func concurrentCreations() async throws {
        try await using(await ServerProcess(arguments: ["--max-active-jobs", "5000", "--jobs-per-minute", "100000"])) { server in
            let client = APIClient(base: server.baseURL)
            let total = 1000
            // All 1,000 at once: every connection is open and every request written before the
            // first answer is read, so the server really has them all in flight together.
            let answers = try await onThread {
                try RawHTTPBurst.send(port: server.port, count: total) { n in
                    let body = #"{"type":"DOC_TO_PDF","original_filename":"doc-\#(n).docx"}"#
                    let head = "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    return head + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                }
            }
            #expect(answers.filter { $0.hasPrefix("HTTP/1.1 201") }.count == total, "\(answers.first { !$0.hasPrefix("HTTP/1.1 201") } ?? "")")
            let ids = answers.compactMap { answer -> String? in
                guard let range = answer.range(of: #""job_id":""#) else { return nil }
                return String(answer[range.upperBound...].prefix { $0 != "\"" })
            }
            #expect(ids.count == total)
            #expect(Set(ids).count == total, "every creation got its own job")
            // The store agrees: walk the list with the cursor.
            var listed: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.get(
                    "/v1/jobs?limit=200" + (cursor.map { "&cursor=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? "")
                ).json
                listed += ((page["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["job_id"] as? String }
                cursor = page["next_cursor"] as? String
            } while cursor != nil
            #expect(listed.count == total && Set(listed) == Set(ids))
            await server.stop()
        }
    }
}

/// Raw sockets for a true burst: libcurl would need a thread per transfer.
enum RawHTTPBurst {
    /// Opens `count` connections to 127.0.0.1:`port`, writes request `n` on connection `n`,
    /// then reads every answer to its end (the requests say `Connection: close`).
    static func send(port: Int, count: Int, request: (Int) -> String) throws -> [String] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<count { sockets.append(try connectToLoopback(port: port)) }
        for (n, fd) in sockets.enumerated() {
            let bytes = Array(request(n).utf8)
            var sent = 0
            while sent < bytes.count {
                let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw POSIXError(.EPIPE) }
                sent += written
            }
        }
        var answers = [[UInt8]](repeating: [], count: count)
        var open = Set(0..<count)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = Date().addingTimeInterval(120)
        while !open.isEmpty && Date() < deadline {
            var fds = open.map { pollfd(fd: sockets[$0], events: Int16(POLLIN), revents: 0) }
            let indexes = Array(open)
            guard poll(&fds, nfds_t(fds.count), 1000) >= 0 else { continue }
            for (position, pfd) in fds.enumerated() where pfd.revents != 0 {
                let n = indexes[position]
                let got = buffer.withUnsafeMutableBytes { recv(pfd.fd, $0.baseAddress, $0.count, 0) }
                if got > 0 { answers[n] += buffer[0..<got] } else { open.remove(n) }
            }
        }
        return answers.map { String(decoding: $0, as: UTF8.self) }
    }
}
