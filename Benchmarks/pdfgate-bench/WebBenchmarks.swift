import Foundation
import GatewayJobModel
import GatewayLocalConverters
import GatewaySandbox
import GatewayTestSupport
import GatewayURLSecurity

/// URL → PDF of a varied local web site (`Fixtures/web-set`: articles with pictures, a big
/// table, SVG charts, a scripted page…), served on 127.0.0.1: our warm browsers, sealed and
/// unsealed, against a cold `chromium --headless --print-to-pdf` per page. Latency is one
/// client's median; throughput is two clients side by side, for us and for the peer.
func urlBenchmark(directory: String, work: String, rounds: Int = 3) async throws {
    try? FileManager.default.removeItem(atPath: work)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let pages = try String(contentsOfFile: directory + "/index.txt", encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    let site = try LoopbackHTTPServer { request, response in
        _ = try request.discardBody()
        let name = String(request.path.dropFirst().prefix { $0 != "?" })
        guard !name.contains("/"), !name.hasPrefix("."), let body = FileManager.default.contents(atPath: directory + "/" + name) else {
            return try response.respond(status: 404, text: "")
        }
        try response.respond(status: 200, headers: [("Content-Type", contentType(of: name))], body: Array(body))
    }
    defer { site.stop() }
    let urls = pages.map { "http://127.0.0.1:\(site.port)/\($0)" }

    let sealed = try await warmBrowsers(urls, rounds: rounds, sandbox: ConverterSandbox(), port: site.port, work: work + "/sealed")
    let unsealed = try await warmBrowsers(
        urls,
        rounds: rounds,
        sandbox: ConverterSandbox(isolation: .none),
        port: site.port,
        work: work + "/unsealed"
    )
    var printed = 0
    for index in urls.indices { printed += try await pdfinfoPageCount(work + "/sealed/serial-\(index)/out.pdf") ?? 0 }

    // The peer: a cold headless Chromium per page, as a script would run it.
    let chromium = LocalConverter.Configuration.locate("chromium", preferring: "/usr/lib/chromium/chromium")
    func cold(_ url: String, _ tag: String) throws -> Double {
        let out = work + "/cold-\(tag)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        return try seconds {
            let result = try runBlocking(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-pdf-header-footer", "--user-data-dir=\(out)/profile",
                    "--print-to-pdf=\(out)/out.pdf", url,
                ],
                environment: nil,
                stdin: nil
            )
            if result.status != 0 { throw NSError(domain: "chromium", code: Int(result.status)) }
        }
    }
    _ = try cold(urls[0], "warm-up")  // the page cache of the binary, as for ours
    var coldLatencies: [Double] = []
    for _ in 0..<rounds {
        for (index, url) in urls.enumerated() { coldLatencies.append(try cold(url, "serial-\(index)")) }
    }
    let coldTotal = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<2 {
                group.addTask {
                    for round in 0..<rounds {
                        for (index, url) in urls.enumerated() { _ = try cold(url, "lane-\(lane)-\(round)-\(index)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    let jobs = Double(2 * rounds * urls.count)
    emit("url.pages", Double(urls.count))
    emit("url.printed_pages", Double(printed))
    emit("url.jobs", jobs)
    emit("url.ours_p50_s", median(sealed.latencies))
    emit("url.ours_per_s", jobs / sealed.twoClients)
    emit("url.unsealed_p50_s", median(unsealed.latencies))
    emit("url.unsealed_per_s", jobs / unsealed.twoClients)
    emit("url.chromium_p50_s", median(coldLatencies))
    emit("url.chromium_per_s", jobs / coldTotal)
}

/// One client's latencies (every page, `rounds` times), then two clients' total time for the
/// same work each, on two warm browsers started before the clock.
private func warmBrowsers(
    _ urls: [String],
    rounds: Int,
    sandbox: ConverterSandbox,
    port: Int,
    work: String
) async throws -> (latencies: [Double], twoClients: Double) {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let converter = try LocalConverter(
        configuration: .init(
            chromiumSlots: 2,
            baseDirectory: work,
            urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(port)"])),
            sandbox: sandbox
        )
    )
    func convert(_ url: String, _ tag: String) async throws -> Double {
        let attempt = work + "/" + tag
        try? FileManager.default.removeItem(atPath: attempt)
        try FileManager.default.createDirectory(atPath: attempt, withIntermediateDirectories: true)
        let request = ConversionRequest(
            jobID: UUID(),
            type: .urlToPDF,
            source: .url(url),
            workDirectory: attempt,
            outputPath: attempt + "/out.pdf",
            deadline: .now + .seconds(60)
        )
        return try await asyncSeconds { try await converter.convert(request, events: { _ in }) }
    }
    // Both browsers started, as a server has them after its first jobs.
    async let warmA = convert(urls[0], "warm-a")
    async let warmB = convert(urls[0], "warm-b")
    _ = try await (warmA, warmB)

    var latencies: [Double] = []
    for round in 0..<rounds {
        for (index, url) in urls.enumerated() { latencies.append(try await convert(url, round == 0 ? "serial-\(index)" : "again-\(index)")) }
    }
    let twoClients = try await asyncSeconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<2 {
                group.addTask {
                    for round in 0..<rounds {
                        for (index, url) in urls.enumerated() { _ = try await convert(url, "client-\(client)-\(round)-\(index)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    await converter.shutdown()
    return (latencies, twoClients)
}

private func contentType(of name: String) -> String {
    switch (name as NSString).pathExtension.lowercased() {
    case "html", "htm": "text/html; charset=utf-8"
    case "css": "text/css"
    case "js": "text/javascript"
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "svg": "image/svg+xml"
    default: "application/octet-stream"
    }
}
