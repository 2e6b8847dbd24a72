import Foundation
import GatewayAssembly
import GatewayHTTPClient
import GatewayTestSupport
import Logging
import Testing

/// Three real `pdfgate serve` processes on one throwaway PostgreSQL database and one store
/// directory, behind no balancer: the clients spread themselves over the nodes.
@Suite("Several gateways on one PostgreSQL", .serialized)
struct ClusterTests {
    /// A running cluster: its nodes, their shared store and database, and the stand-in
    /// converter they all route DOC_TO_PDF to.
    final class Cluster: StoppedAfterUse, @unchecked Sendable {
        let directory = TemporaryDirectory("cluster")
        let store: String
        let databaseURL: String
        let arguments: [String]
        let converter: LoopbackHTTPServer
        var nodes: [ServerProcess] = []
        /// Set when documents are in a bucket: the S3 server and the bucket. Each node then has
        /// a store directory of its own, and shares only the database and the bucket.
        let bucket: (server: TestS3.Server, name: String)?

        /// `delay` is each conversion's length, so a kill finds jobs mid-attempt.
        /// `s3`: a server of the test's own for the bucket (one it stops), else the shared one.
        init(
            nodes count: Int,
            delay: Double,
            extra: [String] = [],
            database: String? = nil,
            bucket inBucket: Bool = false,
            s3: TestS3.Server? = nil
        ) async throws {
            if inBucket {
                let server = try s3 ?? TestS3.shared()
                bucket = (server, try server.freshBucket())
            } else {
                bucket = nil
            }
            store = directory.path + "/store"
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
            databaseURL = try database ?? TestPostgres.freshDatabaseURL()
            let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            converter = try LoopbackHTTPServer { request, response in
                if request.path == "/health" {
                    try response.respond(status: 200, headers: [("Content-Type", "application/json")], text: #"{"status":"up"}"#)
                    return
                }
                _ = try request.discardBody()
                try response.respond(after: .seconds(delay), status: 200, headers: [("Content-Type", "application/pdf")], body: pdf)
            }
            arguments =
                ["--database", databaseURL, "--lease", "3", "--routes", "DOC_TO_PDF=gotenberg=\(converter.baseURL)", "--shutdown-grace", "1"]
                + (bucket.map { ["--documents", "s3://\($0.name)/library"] } ?? []) + extra
            for index in 0..<count { nodes.append(try await start(index)) }
        }

        func start(_ index: Int) async throws -> ServerProcess {
            try await ServerProcess(
                store: bucket == nil ? store : store + "/node\(index)",
                arguments: arguments + ["--node", "node\(index)"],
                environment: bucket?.server.environment ?? [:],
                log: store + ".node\(index).log"
            )
        }

        func client(_ index: Int) -> APIClient { APIClient(base: nodes[index].baseURL) }

        /// One line of `psql` output for `sql`.
        func query(_ sql: String) async throws -> String {
            try await run("psql", [databaseURL, "-tA", "-c", sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func stop() async {
            for node in nodes { await node.stop() }
            converter.stop()
        }

        /// Opens the library as `pdfgate fsck --database …` would, once the nodes are stopped:
        /// the rows and the tree agree, and there are `documents` of them.
        func expectFsckClean(documents: Int) async throws {
            let stores = try await GatewayStores.open(
                root: bucket == nil ? store : store + "/fsck",
                database: .postgres(url: databaseURL),
                documents: bucket.map { .bucket("s3://\($0.name)/library") } ?? .folderTree,
                environment: bucket?.server.environment ?? [:],
                logger: Logger(label: "test"),
                reconciling: false
            )
            let report = try await stores.library.fsck(repair: false, inspector: PdfinfoInspector())
            #expect(report.issues.isEmpty, "\(report.issues)")
            #expect(report.documentsChecked == documents)
        }
    }

    /// `url` with its scheme, host and port replaced by `base`'s: the same signed path and
    /// query, asked of another node.
    static func onNode(_ url: String, _ base: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return base + components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    @Test(
        "200 jobs over 3 nodes, one SIGKILLed mid-run and restarted: 200 documents, none twice, fsck clean (one store folder; or none shared, documents in a bucket)",
        arguments: [false, true]
    )
    func everyJobOnceThroughAKill(inBucket: Bool) async throws {
        let extra = ["--max-active-jobs", "1000", "--jobs-per-minute", "100000"]
        try await using(await Cluster(nodes: 3, delay: 0.15, extra: extra, bucket: inBucket)) { cluster in
            let total = 200
            var ids: [String] = []
            var killedHeld = 0
            for batch in stride(from: 0, to: total, by: 20) {
                if batch == 60 {
                    // Kill node 1 while it runs jobs, so the kill interrupts attempts.
                    let held = "SELECT count(*) FROM jobs WHERE status = 'PROCESSING' AND lease_node = 'node1'"
                    try await eventually("node 1 runs jobs", within: .seconds(10)) { Int(try await cluster.query(held)) ?? 0 > 0 }
                    await cluster.nodes[1].kill9()
                    killedHeld = Int(try await cluster.query(held)) ?? 0
                }
                if batch == 140 { cluster.nodes[1] = try await cluster.start(1) }
                let live = batch >= 60 && batch < 140 ? [0, 2] : [0, 1, 2]
                ids += try await withThrowingTaskGroup(of: String.self) { group in
                    for i in batch..<batch + 20 {
                        let client = cluster.client(live[i % live.count])
                        group.addTask {
                            let created = try await client.oneShot("sample.docx", query: "&name=job-\(i)")
                            return try #require(created.string("job_id"), "create \(i): \(created.status) \(created.text)")
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(Set(ids).count == total)

            // Wait for the store to say every job ended, then ask the API on each node.
            var unfinished = total
            try await eventually("every job ends; \(unfinished) unfinished", within: .seconds(120), poll: .milliseconds(250)) {
                unfinished = Int(try await cluster.query("SELECT count(*) FROM jobs WHERE status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')")) ?? -1
                return unfinished == 0
            }
            #expect(try await cluster.query("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'") == "\(total)")

            var documentIDs: [String] = []
            for (index, id) in ids.enumerated() {
                let job = try await cluster.client(index % 3).get("/v1/jobs/\(id)")
                #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
                if let document = job.json["document"] as? [String: Any], let documentID = document["id"] as? String {
                    documentIDs.append(documentID)
                }
            }
            #expect(documentIDs.count == total && Set(documentIDs).count == total, "one document per job")
            let listed = try await cluster.client(2).get("/v1/documents?recursive=true&limit=200")
            #expect(
                (listed.json["documents"] as? [Any])?.count == total,
                "the library holds exactly one document per job: \(listed.text.prefix(300))"
            )
            if let bucket = cluster.bucket {
                let objects = try bucket.server.peek(["list", bucket.name, "library/documents/"]).split(separator: "\n")
                #expect(objects.count == total, "one object per document in the bucket")
            } else {
                let files = try FileManager.default.contentsOfDirectory(atPath: cluster.store + "/default").filter { $0.hasSuffix(".pdf") }
                #expect(files.count == total, "one file per document on disk")
            }

            // Whatever the dead node was running, a live node took over.
            var takeovers = 0
            for index in 0..<3 {  // node 1 restarted may have taken over its own dead leases
                let metrics = try await cluster.client(index).get("/metrics").text
                #expect(metrics.contains(#"pdfgate_queue_depth{type="DOC_TO_PDF",node="node\#(index)"} 0"#), "\(metrics)")
                let line = metrics.split(separator: "\n").first { $0.hasPrefix("pdfgate_lease_takeovers_total{node=\"node\(index)\"}") }
                takeovers += line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            #expect(killedHeld > 0, "the kill interrupted running jobs")
            #expect(takeovers >= killedHeld, "\(killedHeld) jobs were running on the killed node; \(takeovers) taken over")

            await cluster.stop()
            try await cluster.expectFsckClean(documents: total)
        }
    }

    @Test("1,000 creates racing on 3 nodes: one job for one Idempotency-Key, exactly the owner's limit of jobs")
    func createRaces() async throws {
        let limit = 25
        try await using(await Cluster(nodes: 3, delay: 0, extra: ["--max-active-jobs", "\(limit)", "--jobs-per-minute", "100000"])) { cluster in

            /// `count` JSON creates over the nodes in turn, 48 at a time; the statuses and job ids answered.
            func race(_ count: Int, key: String?) async throws -> [(status: Int, id: String?)] {
                try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    var answers: [(status: Int, id: String?)] = []
                    for i in 0..<count {
                        if i >= 48, let answer = try await group.next() { answers.append(answer) }
                        let client = cluster.client(i % 3)
                        group.addTask {
                            let created = try await client.send(
                                "POST",
                                "/v1/jobs",
                                json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"],
                                headers: key.map { [("Idempotency-Key", $0)] } ?? []
                            )
                            return (created.status, created.string("job_id"))
                        }
                    }
                    for try await answer in group { answers.append(answer) }
                    return answers
                }
            }

            let keyed = try await race(1000, key: "one-key")
            let keyedIDs = Set(keyed.compactMap(\.id))
            #expect(keyedIDs.count == 1, "one job for one key: \(keyedIDs)")
            #expect(keyed.filter { $0.status == 201 }.count == 1, "created once; the rest replayed or were told it is in progress")
            #expect(keyed.allSatisfy { [200, 201, 409].contains($0.status) }, "\(Set(keyed.map(\.status)))")

            let plain = try await race(1000, key: nil)
            #expect(plain.filter { $0.status == 201 }.count == limit - 1, "the key's job and these fill the limit exactly")
            #expect(plain.allSatisfy { [201, 429].contains($0.status) }, "\(Set(plain.map(\.status)))")
            #expect(try await cluster.query("SELECT count(*) FROM jobs") == "\(limit)")
            await cluster.stop()
        }
    }

    @Test("the creation rate is one allowance per owner across nodes, not one per node")
    func creationRateAcrossNodes() async throws {
        let perMinute = 30
        try await using(await Cluster(nodes: 3, delay: 0, extra: ["--jobs-per-minute", "\(perMinute)", "--max-active-jobs", "1000"])) { cluster in
            let start = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<(3 * perMinute) {
                    let client = cluster.client(i % 3)
                    group.addTask { try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"]).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // The bucket refills at half a creation per second while the burst runs.
            let refill = Int((start.duration(to: .now).inSeconds * Double(perMinute) / 60).rounded(.up))
            let created = statuses.filter { $0 == 201 }.count
            #expect(created >= perMinute && created <= perMinute + refill, "\(created) created, allowance \(perMinute) + \(refill)")
            #expect(statuses.allSatisfy { [201, 429].contains($0) }, "\(Set(statuses))")
            await cluster.stop()
        }
    }

    @Test(
        "the mobile client across nodes: create on A, upload to B, submit and poll on C, events where the job is not running, download from A (one store folder; or none shared, documents in a bucket)",
        arguments: [false, true]
    )
    func mobileClientAcrossNodes(inBucket: Bool) async throws {
        try await using(await Cluster(nodes: 3, delay: 2, bucket: inBucket)) { cluster in
            let (a, b, c) = (cluster.client(0), cluster.client(1), cluster.client(2))

            let created = try await a.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "sample.docx"])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.string("job_id"))
            let upload = try #require((created.json["upload"] as? [String: Any])?["url"] as? String)
            let put = try await b.send(
                "PUT",
                Self.onNode(upload, cluster.nodes[1].baseURL),
                body: .file(path: Fixtures.office("sample.docx")),
                headers: [("Content-Type", "application/octet-stream")]
            )
            #expect((200..<300).contains(put.status), "upload on another node: \(put.text)")
            // The signed URL is single-use across nodes: a second PUT on a third node is refused.
            let again = try await c.send(
                "PUT",
                Self.onNode(upload, cluster.nodes[2].baseURL),
                body: .file(path: Fixtures.office("sample.docx")),
                headers: [("Content-Type", "application/octet-stream")]
            )
            #expect(again.status == 409 && again.string("error") == "already_uploaded", "\(again.status) \(again.text)")
            let submitted = try await c.post("/v1/jobs/\(id)/submit")
            #expect(submitted.status == 200, "\(submitted.text)")

            // The job's events, streamed by a node that is not the one running it: only the
            // re-read of watched jobs can tell that node the job moved on.
            let runner = try await until("a node claims the job", within: .seconds(10)) {
                let node = try await cluster.query("SELECT lease_node FROM jobs WHERE id = '\(id)' AND status = 'PROCESSING'")
                return node.isEmpty ? nil : node
            }
            let watcher = try #require((0..<3).first { "node\($0)" != runner }, "claimed by \(runner)")
            let events = Task { [client = cluster.client(watcher)] in try await client.get("/v1/jobs/\(id)/events").text }

            let job = try await c.ended(id, within: .seconds(60), poll: .milliseconds(200))
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")

            let stream = try await events.value
            let revisions = stream.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
            #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "events in order, none twice: \(revisions)")
            #expect(!runner.isEmpty, "the job was claimed")
            #expect(stream.contains(#""status":"PROCESSING""#) && stream.contains(#""status":"SUCCEEDED""#), "\(stream)")

            let download = try #require(job.json["download_url"] as? String)
            let pdf = cluster.store + ".downloaded.pdf"
            let response = try await a.http.execute(HTTPRequest(url: Self.onNode(download, cluster.nodes[0].baseURL)), sink: .file(path: pdf))
            #expect(response.status == 200)
            #expect(try await pdfinfoPageCount(pdf) == 1)
            await cluster.stop()
        }
    }

    @Test(
        "search on PostgreSQL: filed on one node, its text read by the cluster, found by a word on another node with page and snippet; a rename on a third follows"
    )
    func searchAcrossNodes() async throws {
        try await using(await Cluster(nodes: 3, delay: 0)) { cluster in
            let pdfs = TemporaryDirectory("cluster-search")
            let texts = [
                ["Rental agreement for the flat", "The tenant pays the quarterly service charge"],
                ["Invoice for consulting services", "Total amount due within thirty days"],
                ["Shopping list with apples and bread"],
            ]
            var ids: [String] = []
            for (index, pages) in texts.enumerated() {
                try await TextPDF.make(pdfs.path + "/\(index).pdf", pages: pages)
                let filed = try await cluster.client(0).send(
                    "POST",
                    "/v1/documents?filename=\(index).pdf&name=Document%20\(index)",
                    body: .file(path: pdfs.path + "/\(index).pdf"),
                    headers: [("Content-Type", "application/pdf")]
                )
                #expect(filed.status == 201, "\(filed.text)")
                ids.append(try #require(filed.string("id")))
            }
            // The nodes' indexers read the text in the background: wait until none is pending.
            let found = try await until("no document waits for the indexers", within: .seconds(30), poll: .milliseconds(200)) {
                let answer = try await cluster.client(1).get("/v1/documents?q=quarterly")
                return (answer.json["search"] as? [String: Any])?["pending"] as? Int == 0 ? answer : nil
            }
            let hits = try #require(found.json["hits"] as? [[String: Any]], "\(found.text)")
            #expect(hits.map { $0["document_id"] as? String } == [ids[0]], "\(found.text)")
            #expect(hits.first?["page"] as? Int == 2 && hits.first?["matched_in"] as? String == "text")
            let marked = (hits.first?["snippet"] as? [[String: Any]])?.filter { $0["match"] as? Bool == true }.compactMap { $0["text"] as? String }
            #expect(marked == ["quarterly"], "\(found.text)")
            #expect(try await cluster.query("SELECT count(*) FROM document_index WHERE state = 'ready'") == "3")

            // A phrase across nodes, and a rename on a third node that the index follows.
            let phrase = try await cluster.client(2).get("/v1/documents?q=%22amount%20due%22")
            #expect((phrase.json["hits"] as? [[String: Any]])?.map { $0["document_id"] as? String } == [ids[1]], "\(phrase.text)")
            let renamed = try await cluster.client(2).send("PATCH", "/v1/documents/\(ids[2])", json: ["name": "Groceries Zurich"])
            #expect(renamed.status == 200, "\(renamed.text)")
            let byName = try await cluster.client(0).get("/v1/documents?q=zurich%20apples")
            #expect((byName.json["hits"] as? [[String: Any]])?.first?["matched_in"] as? String == "text", "\(byName.text)")
            #expect((byName.json["documents"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Groceries Zurich"], "\(byName.text)")
            let metrics = try await cluster.client(1).get("/metrics")
            #expect(metrics.text.contains(#"pdfgate_search_index_documents{state="ready"} 3"#), "\(metrics.text)")
            await cluster.stop()
            try await cluster.expectFsckClean(documents: 3)
        }
    }

    @Test("PostgreSQL restarts mid-run: every job still finishes, one document each, fsck clean")
    func databaseRestart() async throws {
        let server = try TestPostgres.startServer()
        defer { server.stop() }
        try await using(await Cluster(nodes: 2, delay: 0.2, extra: ["--max-active-jobs", "1000"], database: server.url)) { cluster in
            let total = 40
            var ids: [String] = []
            for i in 0..<total {
                let created = try await cluster.client(i % 2).oneShot("sample.docx", query: "&name=job-\(i)")
                ids.append(try #require(created.string("job_id"), "\(created.text)"))
            }
            // Jobs are queued, running and filing while every connection drops.
            try server.restart()

            var statuses: [String] = []
            // Not thrown: the count below says how far the jobs got, and the nodes' logs follow.
            try? await eventually("every job ends", within: .seconds(90), poll: .milliseconds(500)) {
                statuses = []
                for (index, id) in ids.enumerated() {
                    let job = try? await cluster.client(index % 2).get("/v1/jobs/\(id)")
                    statuses.append(job?.string("status") ?? "unreachable")
                }
                return statuses.allSatisfy { APIClient.endStatuses.contains($0) }
            }
            let succeeded = statuses.filter { $0 == "SUCCEEDED" }.count
            #expect(succeeded == total, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
            if succeeded != total {
                for node in cluster.nodes {
                    print(node.log.split(separator: "\n").filter { !$0.contains("jobs.succeeded") }.suffix(40).joined(separator: "\n"))
                }
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: cluster.store + "/default").filter { $0.hasSuffix(".pdf") }
            #expect(files.count == total, "one file per job: \(files.count)")

            await cluster.stop()
            try await cluster.expectFsckClean(documents: total)
        }
    }
}
