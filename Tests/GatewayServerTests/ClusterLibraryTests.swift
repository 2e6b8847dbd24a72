import Foundation
import GatewayTestSupport
import Testing

/// The library's new doors on three nodes of one PostgreSQL database and one store: the app's
/// backup protocol and the WebDAV drive, each write made on one node and seen on the others.
@Suite("The drive and the backup protocol on three nodes", .serialized)
struct ClusterLibraryTests {
    @Test("a backup, a change read on another node, a stale write refused on a third; a WebDAV write and lock seen on every node")
    func backupAndDriveAcrossNodes() async throws {
        try await using(try await ClusterTests.Cluster(nodes: 3, delay: 0)) { cluster in
            let (a, b, c) = (cluster.client(0), cluster.client(1), cluster.client(2))
            let document = UUID().uuidString.lowercased()
            let start = try #require(try await c.get("/v1/changes").string("token"))

            let created = try await a.send(
                "PUT",
                "/v1/documents/\(document)?name=Receipt",
                body: .file(path: Fixtures.pdf("one-page.pdf")),
                headers: [("Content-Type", "application/pdf"), ("If-None-Match", "*")]
            )
            #expect(created.status == 201, "\(created.text)")
            let firstVersion = try #require(created.headers["ETag"])

            let renamed = try await b.send("PATCH", "/v1/documents/\(document)", json: ["name": "Receipt March"])
            #expect(renamed.status == 200)
            let changes = try await c.get("/v1/changes?since=\(start)")
            let entries = try #require(changes.json["changes"] as? [[String: Any]])
            #expect(entries.count == 1 && (entries.first?["document"] as? [String: Any])?["name"] as? String == "Receipt March")

            let stale = try await c.send(
                "PUT",
                "/v1/documents/\(document)?name=Receipt",
                body: .file(path: Fixtures.pdf("many-pages.pdf")),
                headers: [("Content-Type", "application/pdf"), ("If-Match", firstVersion)]
            )
            #expect(stale.status == 412 && stale.string("error") == "precondition_failed")
            #expect(try await a.get("/v1/documents/\(document)").json["page_count"] as? Int == 1, "nothing was written")

            // The drive: a folder made on one node, a PDF dropped on another, listed on the third.
            #expect(try await a.send("MKCOL", "/dav/Drive").status == 201)
            let dropped = try await b.send("PUT", "/dav/Drive/Scan.pdf", body: .file(path: Fixtures.pdf("one-page.pdf")))
            #expect(dropped.status == 201)
            let listing = try await c.send("PROPFIND", "/dav/Drive/", headers: [("Depth", "1")])
            #expect(listing.status == 207 && listing.text.contains("<D:href>/dav/Drive/Scan.pdf</D:href>"))
            let syncBody = { (token: String) in
                Array(
                    #"<D:sync-collection xmlns:D="DAV:"><D:sync-token>\#(token)</D:sync-token><D:prop><D:getetag/></D:prop></D:sync-collection>"#.utf8
                )
            }
            let firstSync = try await c.send("REPORT", "/dav/Drive/", body: .bytes(syncBody("")))
            #expect(firstSync.status == 207 && firstSync.text.contains("<D:href>/dav/Drive/Scan.pdf</D:href><D:propstat>"))
            let syncToken = try #require(firstSync.text.firstMatch(of: /<D:sync-token>([^<]+)<\/D:sync-token><\/D:multistatus>/)?.1)

            // A lock taken on one node holds on the others.
            let lockinfo =
                #"<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>"#
            let locked = try await a.send(
                "LOCK",
                "/dav/Drive/Scan.pdf",
                body: .bytes(Array(lockinfo.utf8)),
                headers: [("Content-Type", "application/xml")]
            )
            #expect(locked.status == 200)
            let token = try #require(locked.headers["Lock-Token"])
            let refused = try await b.send("DELETE", "/dav/Drive/Scan.pdf")
            #expect(refused.status == 423)
            let allowed = try await c.send("DELETE", "/dav/Drive/Scan.pdf", headers: [("If", "(\(token))")])
            #expect(allowed.status == 204)
            let gone = try await a.get("/v1/changes?since=\(start)")
            #expect((gone.json["changes"] as? [[String: Any]])?.contains { $0["deleted"] as? Bool == true } == true, "the delete is in the feed")
            let laterSync = try await a.send("REPORT", "/dav/Drive/", body: .bytes(syncBody(String(syncToken))))
            #expect(
                laterSync.text.contains("<D:href>/dav/Drive/Scan.pdf</D:href><D:status>HTTP/1.1 404 Not Found</D:status>"),
                "a token from one node reads on another: \(laterSync.text)"
            )
        }
    }
}

/// The same doors on nodes that share no folder: one PostgreSQL database and one Ceph bucket,
/// each node with a store directory of its own for its cache.
@Suite("The library on a bucket, three nodes with no shared folder", .serialized)
struct BucketClusterTests {
    @Test("a PDF backed up on one node reads the same on the others, over the API and WebDAV, as boto3 reads it from the bucket")
    func documentsAgreeAcrossNodesAndWithTheBucket() async throws {
        try await using(try await ClusterTests.Cluster(nodes: 3, delay: 0, bucket: true)) { cluster in
            let (a, b, c) = (cluster.client(0), cluster.client(1), cluster.client(2))
            let bucket = try #require(cluster.bucket)
            let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf")))
            let document = UUID().uuidString.lowercased()
            let created = try await a.send(
                "PUT",
                "/v1/documents/\(document)?name=Statement",
                body: .file(path: Fixtures.pdf("many-pages.pdf")),
                headers: [("Content-Type", "application/pdf")]
            )
            #expect(created.status == 201, "\(created.text)")
            let sha = try #require(created.string("sha256"))

            // What another S3 client finds in the bucket: one object, the PDF, named by id and hash.
            let listed = try bucket.server.peek(["list", bucket.name, "library/"])
            #expect(listed.split(separator: "\n").count == 1)
            #expect(listed.contains("library/documents/\(document)/\(sha).pdf"))
            let fromBucket = cluster.directory.path + "/boto3.pdf"
            _ = try bucket.server.peek(["get", bucket.name, "library/documents/\(document)/\(sha).pdf", fromBucket])
            #expect(try Data(contentsOf: URL(fileURLWithPath: fromBucket)) == original)

            let viaAPI = try await b.get("/v1/documents/\(document)/content")
            #expect(viaAPI.status == 200 && Data(viaAPI.body) == original)
            let ranged = try await c.get("/v1/documents/\(document)/content", headers: [("Range", "bytes=10-19")])
            #expect(ranged.status == 206 && Data(ranged.body) == original[10...19])
            let unchanged = try await c.get("/v1/documents/\(document)/content", headers: [("If-None-Match", "\"\(sha)\"")])
            #expect(unchanged.status == 304)
            let viaDAV = try await c.get("/dav/Statement.pdf")
            #expect(viaDAV.status == 200 && Data(viaDAV.body) == original)

            // A rename on one node is a row: the object stays where it is, and every node reads it.
            let renamed = try await b.send("PATCH", "/v1/documents/\(document)", json: ["name": "Statement March"])
            #expect(renamed.status == 200)
            #expect(try await a.get("/dav/Statement%20March.pdf").body == viaAPI.body)
            #expect(try bucket.server.peek(["list", bucket.name, "library/"]) == listed)

            let deleted = try await c.send("DELETE", "/v1/documents/\(document)")
            #expect(deleted.status == 204)
            #expect(try await a.get("/v1/documents/\(document)/content").status == 404)
        }
    }

    @Test("with --download-redirect a download is a 302 to a presigned URL of the object, which fetches without keys")
    func downloadsRedirectToThePresignedObject() async throws {
        try await using(try await ClusterTests.Cluster(nodes: 1, delay: 0, extra: ["--download-redirect", "60"], bucket: true)) { cluster in
            let client = cluster.client(0)
            let document = UUID().uuidString.lowercased()
            let created = try await client.send(
                "PUT",
                "/v1/documents/\(document)?name=Receipt",
                body: .file(path: Fixtures.pdf("one-page.pdf")),
                headers: [("Content-Type", "application/pdf")]
            )
            #expect(created.status == 201)
            let answer = try await client.get("/v1/documents/\(document)/content")
            #expect(answer.status == 302)
            let location = try #require(answer.headers["Location"])
            #expect(location.hasPrefix(try #require(cluster.bucket).server.endpoint) && location.contains("X-Amz-Signature="))
            let fetched = try await APIClient(base: "").get(location)
            #expect(fetched.status == 200)
            #expect(Data(fetched.body) == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf")))))
            #expect(fetched.headers["Content-Disposition"]?.contains("Receipt.pdf") == true)
        }
    }
}

/// The bucket's server stopped in the middle of a run, then started again.
@Suite("An S3 outage", .serialized)
struct BucketOutageTests {
    @Test("jobs running while S3 is down wait and finish once it is back; reads meanwhile answer 503 with Retry-After; nothing lost, fsck clean")
    func jobsWaitOutAnOutage() async throws {
        let s3 = try TestS3.start()
        defer { s3.stop() }
        try await using(try await ClusterTests.Cluster(nodes: 1, delay: 3, bucket: true, s3: s3)) { cluster in
            let client = cluster.client(0)
            let before = try await client.send(
                "PUT",
                "/v1/documents/\(UUID().uuidString.lowercased())?name=Before",
                body: .file(path: Fixtures.pdf("many-pages.pdf")),
                headers: [("Content-Type", "application/pdf")]
            )
            #expect(before.status == 201)
            let filedBefore = try #require(before.string("id"))
            var jobs: [String] = []
            for index in 0..<6 {
                let created = try await client.oneShot("sample.docx", query: "&name=during-\(index)")
                jobs.append(try #require(created.string("job_id"), "\(created.text)"))
            }
            // The jobs are converting (3 s each, two at a time) when the bucket goes away.
            try s3.stopGateway()
            var unfinishedAtOutage = 0
            for id in jobs where !APIClient.endStatuses.contains(try await client.get("/v1/jobs/\(id)").string("status") ?? "") {
                unfinishedAtOutage += 1
            }
            #expect(unfinishedAtOutage > 0, "the outage began while jobs ran")
            // A document on a node whose cache is cold: the bytes are out of reach, and it says when to ask again.
            let cold = try await ClusterTests.Cluster.coldRead(cluster, document: filedBefore)
            #expect(cold.status == 503, "\(cold.text)")
            #expect(cold.string("error") == "storage_unavailable")
            #expect(cold.headers["Retry-After"] != nil)
            try await Task.sleep(for: .seconds(4))
            for id in jobs {
                let job = try await client.get("/v1/jobs/\(id)")
                #expect(!["FAILED", "CANCELLED"].contains(job.string("status") ?? ""), "waiting or done, not failed: \(job.text)")
            }
            try s3.startGateway()
            for id in jobs {
                let ended = try await client.ended(id, within: .seconds(120))
                #expect(ended.string("status") == "SUCCEEDED", "\(ended.text)")
            }
            let listed = try await client.get("/v1/documents?limit=50")
            #expect((listed.json["documents"] as? [Any])?.count == 7)
            let bucket = try #require(cluster.bucket)
            #expect(try s3.peek(["list", bucket.name, "library/documents/"]).split(separator: "\n").count == 7)
            await cluster.stop()
            try await cluster.expectFsckClean(documents: 7)
        }
    }
}

extension ClusterTests.Cluster {
    /// Reads a document's bytes on node `index` once its cache has been emptied.
    static func coldRead(_ cluster: ClusterTests.Cluster, document: String, node index: Int = 0) async throws -> APIClient.Answer {
        let cache = cluster.store + "/node\(index)/.pdfgate/cache/objects"
        for entry in try FileManager.default.contentsOfDirectory(atPath: cache) { try FileManager.default.removeItem(atPath: cache + "/" + entry) }
        return try await cluster.client(index).get("/v1/documents/\(document)/content")
    }
}
