import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// The mobile app's client, written the way the app's is: create, PUT the bytes to the signed
/// URL, submit, poll every second for up to 120 s, download. Against real `pdfgate serve`
/// processes over loopback, converting a real docx with the real LibreOffice.
@Suite("Mobile job protocol over HTTP")
struct MobileProtocolTests {
    /// The app's flow; returns the downloaded PDF's path and the final job answer.
    static func convertLikeTheApp(_ client: APIClient, file: String, into directory: String) async throws -> (pdf: String, job: [String: Any]) {
        let filename = (file as NSString).lastPathComponent
        let created = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": filename])
        #expect(created.status == 201, "create: \(created.text)")
        #expect(created.string("status") == "CREATED")
        let jobID = try #require(created.string("job_id"))
        let upload = try #require(created.json["upload"] as? [String: Any])
        #expect(upload["method"] as? String == "PUT")
        let uploadURL = try #require(upload["url"] as? String)
        #expect(uploadURL.hasPrefix("http://127.0.0.1:"), "absolute URL from the request's Host")

        let put = try await client.send("PUT", uploadURL, body: .file(path: file), headers: [("Content-Type", "application/octet-stream")])
        #expect((200..<300).contains(put.status), "upload: \(put.text)")

        let submitted = try await client.post("/v1/jobs/\(jobID)/submit")
        #expect(submitted.status == 200)
        #expect(["QUEUED", "PROCESSING", "SUCCEEDED"].contains(submitted.string("status") ?? ""))

        // Polled as an app does, once a second.
        var job: [String: Any] = [:]
        try await eventually("job \(jobID) ends; last: \(job)", within: .seconds(120), poll: .seconds(1)) {
            let poll = try await client.get("/v1/jobs/\(jobID)")
            job = poll.json
            let status = poll.string("status") ?? ""
            if status == "SUCCEEDED" || status == "FAILED" { return true }
            #expect(poll.headers["Retry-After"] != nil, "non-terminal polls carry Retry-After")
            return false
        }
        #expect(job["status"] as? String == "SUCCEEDED", "job: \(job)")
        let downloadURL = try #require(job["download_url"] as? String)
        let pdf = directory + "/\(jobID).pdf"
        let response = try await client.http.execute(HTTPRequest(url: downloadURL), sink: .file(path: pdf))
        #expect(response.status == 200)
        return (pdf, job)
    }

    @Test("a docx goes create → upload → submit → poll → download, and the PDF is real")
    func appFlow() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let (pdf, job) = try await Self.convertLikeTheApp(client, file: Fixtures.office("sample.docx"), into: server.store)
            let document = try #require(job["document"] as? [String: Any])
            let pages = try await pdfinfoPageCount(pdf)
            #expect(pages != nil && pages == document["page_count"] as? Int, "pdfinfo agrees with the page count the API reports")
            #expect(document["path"] as? String == "default/sample.pdf")
            #expect(FileManager.default.fileExists(atPath: server.store + "/default/sample.pdf"), "filed in the library on disk")
            await server.stop()
        }
    }

    /// Run twice: the front waiting on the back's event stream (the default), and polling only,
    /// as the app does, so upload and polls both cross a real process boundary.
    @Test("two gateways chained: the first converts through the second with the same protocol", arguments: [true, false])
    func chainedGateways(eventStreams: Bool) async throws {
        let converter = try await ServerProcess()
        let front = try await ServerProcess(
            arguments: ["--routes", "DOC_TO_PDF=gateway=\(converter.baseURL)"],
            environment: ["PDFGATE_REMOTE_EVENT_STREAMS": String(eventStreams)]
        )
        let client = APIClient(base: front.baseURL)
        let (pdf, job) = try await Self.convertLikeTheApp(client, file: Fixtures.office("sample.odt"), into: front.store)
        let document = try #require(job["document"] as? [String: Any])
        #expect(try await pdfinfoPageCount(pdf) == document["page_count"] as? Int)
        // The back server really did the work: it has a job of its own that succeeded.
        let backJobs = try await APIClient(base: converter.baseURL).get("/v1/jobs?status=SUCCEEDED")
        #expect((backJobs.json["jobs"] as? [Any])?.count == 1, "the second gateway ran exactly one job: \(backJobs.text)")
        await front.stop()
        await converter.stop()
    }

    @Test("uploads: single use, capped with nothing kept, signatures tamper-proof and expiring")
    func signedUploads() async throws {
        try await using(await ServerProcess(arguments: ["--max-upload-bytes", "4096"])) { server in
            let client = APIClient(base: server.baseURL)
            let created = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "big.docx"])
            let jobID = try #require(created.string("job_id"))
            let url = try #require((created.json["upload"] as? [String: Any])?["url"] as? String)

            // Over the cap (the docx fixture is ~5.4 KB): 413, and no input is staged.
            let tooBig = try await client.send("PUT", url, body: .file(path: Fixtures.office("sample.docx")))
            #expect(tooBig.status == 413)
            #expect(tooBig.string("error") == "upload_too_large")
            let input = server.store + "/.pdfgate/staging/\(jobID)/input"
            #expect((try? FileManager.default.contentsOfDirectory(atPath: input))?.isEmpty ?? true, "nothing kept after a 413")
            #expect(try await client.get("/v1/jobs/\(jobID)").string("status") == "CREATED")

            // A tampered signature, and a tampered size cap: 403.
            var tampered = url
            // A character inside the signature: the last one of base64 may carry only padding bits.
            let inside = tampered.index(tampered.endIndex, offsetBy: -10)
            tampered.replaceSubrange(inside...inside, with: tampered[inside] == "A" ? "B" : "A")
            let forged = try await client.send("PUT", tampered, body: .bytes(Array("x".utf8)))
            #expect(forged.status == 403 && forged.string("error") == "bad_signature")
            let raisedCap = url.replacingOccurrences(of: "max=4096", with: "max=999999")
            #expect(try await client.send("PUT", raisedCap, body: .bytes([1])).status == 403)

            // Expired: a URL signed with the server's own key but an expiry in the past → 410.
            let secrets =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: server.store + "/.pdfgate/secrets.json")))
                as? [String: Any]
            let key = try #require((secrets?["signing_keys"] as? [[String: Any]])?.first)
            let signer = TestSigner(id: key["id"] as! String, secret: key["secret"] as! String)
            let path = "/v1/uploads/\(jobID)"
            let expired =
                server.baseURL + path + "?" + signer.sign(method: "PUT", path: path, exp: Int64(Date().timeIntervalSince1970) - 5, max: 4096)
            let gone = try await client.send("PUT", expired, body: .bytes([1]))
            #expect(gone.status == 410 && gone.string("error") == "url_expired")

            // A small file fits; the second PUT to the same URL is refused.
            let small = server.store + "/small.txt"
            try Data("hello".utf8).write(to: URL(fileURLWithPath: small))
            #expect(try await client.send("PUT", url, body: .file(path: small)).status == 200)
            let again = try await client.send("PUT", url, body: .file(path: small))
            #expect(again.status == 409 && again.string("error") == "already_uploaded")
            await server.stop()
        }
    }
}
