import Foundation
import GatewayJobModel
import GatewayRemoteConverters
import GatewayTestSupport
import Synchronization

/// (b) Remote jobs that take about 1, 5 and 30 s on a fake v1 gateway on 127.0.0.1: requests per
/// job and the delay between the remote finishing and us noticing — ours (the peer's event
/// stream), our backoff polling alone (for peers without one), and fixed 1 s polling, all at once. Each duration runs three times, offset by 0.25, 0.5 and
/// 0.75 s, because a job that ends exactly on a whole second flatters fixed 1 s polling.
func pollingBenchmark(pdf: String, work: String) async throws {
    let pdfBytes = Array(FileManager.default.contents(atPath: pdf) ?? Data())
    let jobs = Mutex<[String: RemoteJob]>([:])
    let server = try LoopbackHTTPServer { request, response in
        let now = ContinuousClock.now
        let parts = request.path.split(separator: "/").map(String.init)
        if request.method == "POST" && request.path == "/v1/jobs" {
            let body = try request.readBodyText()
            // The job's duration and the policy under test ride in the URL to convert: ?d=<s>&p=<label>.
            let seconds = Double(body.components(separatedBy: "d=").last?.prefix { $0.isNumber || $0 == "." } ?? "1") ?? 1
            let label = body.contains("p=ours") ? "ours" : body.contains("p=polled") ? "polled" : "fixed"
            let id = UUID().uuidString.lowercased()
            jobs.withLock { $0[id] = RemoteJob(label: label, start: now, duration: .milliseconds(Int64(seconds * 1000))) }
            try response.respond(status: 201, headers: [("Content-Type", "application/json")], text: #"{"job_id":"\#(id)","status":"QUEUED"}"#)
        } else if request.method == "GET" && parts.count == 3 && parts[0] == "v1" {
            let done: Bool = jobs.withLock { all in
                guard var job = all[parts[2]] else { return false }
                job.polls += 1
                let finished = now >= job.start + job.duration
                if finished && job.detected == nil { job.detected = now }
                all[parts[2]] = job
                return finished
            }
            let answer =
                done
                ? #"{"status":"SUCCEEDED","download_url":"\#(request.header("Host").map { "http://\($0)" } ?? "")/download/\#(parts[2])"}"#
                : #"{"status":"PROCESSING"}"#
            try response.respond(status: 200, headers: [("Content-Type", "application/json")], text: answer)
        } else if request.method == "GET" && parts.count == 4 && parts[3] == "events" {
            // As PDF Gateway serves it: the stream answers when the job ends (heartbeats meanwhile).
            guard let job = jobs.withLock({ $0[parts[2]] }) else { return try response.respond(status: 404) }
            jobs.withLock { $0[parts[2]]?.polls += 1 }
            try response.startBody(status: 200, headers: [("Content-Type", "text/event-stream")], contentLength: nil)
            let end = job.start + job.duration
            while ContinuousClock.now < end {
                let wait = min(end - ContinuousClock.now, .seconds(10))
                Thread.sleep(forTimeInterval: asSeconds(wait))
                if ContinuousClock.now < end { try response.write(Array(": heartbeat\n\n".utf8)) }
            }
            jobs.withLock { all in
                if all[parts[2]]?.detected == nil { all[parts[2]]?.detected = ContinuousClock.now }
            }
            let host = request.header("Host").map { "http://\($0)" } ?? ""
            let data = #"{"status":"SUCCEEDED","download_url":"\#(host)/download/\#(parts[2])"}"#
            try response.write(Array("id: 2\nevent: job\ndata: \(data)\n\n".utf8))
            try response.finish()
        } else if request.method == "GET" && parts.first == "download" {
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: pdfBytes)
        } else {
            _ = try request.discardBody()
            try response.respond(status: 404)
        }
    }
    defer { server.stop() }

    let fixed = RemotePollingPolicy(
        backoff: BackoffPolicy(initial: .seconds(1), multiplier: 1, maximum: .seconds(1), jitter: 0),
        detectionFraction: 1000,
        detectionFloor: .seconds(1),
        streamEvents: false
    )
    let ours = RemoteGatewayConverter(configuration: .init(baseURL: server.baseURL))
    let everySecond = RemoteGatewayConverter(configuration: .init(baseURL: server.baseURL, polling: fixed))
    // Our backoff polling alone, as used against a peer that has no event stream.
    let polledOnly = RemoteGatewayConverter(configuration: .init(baseURL: server.baseURL, polling: RemotePollingPolicy(streamEvents: false)))

    try await withThrowingTaskGroup(of: Void.self) { group in
        for (label, converter) in [("ours", ours), ("polled", polledOnly), ("fixed", everySecond)] {
            for base in [1, 5, 30] {
                for offset in [0.25, 0.5, 0.75] {
                    let seconds = Double(base) + offset
                    group.addTask {
                        let directory = work + "/poll-\(label)-\(seconds)"
                        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                        let request = ConversionRequest(
                            jobID: UUID(),
                            type: .urlToPDF,
                            source: .url("https://example.com/page?d=\(seconds)&p=\(label)"),
                            workDirectory: directory,
                            outputPath: directory + "/out.pdf",
                            deadline: .now + .seconds(120)
                        )
                        try await converter.convert(request, events: { _ in })
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let all = jobs.withLock { Array($0.values) }
    for label in ["ours", "polled", "fixed"] {
        for base in [1, 5, 30] {
            let runs = all.filter { $0.label == label && Int($0.duration.components.seconds) == base }
            let key = "polling.\(label).\(base)s"
            emit(key + ".polls", Double(runs.map(\.polls).reduce(0, +)) / Double(max(runs.count, 1)))
            let delays = runs.map { job in job.detected.map { asSeconds($0 - (job.start + job.duration)) } ?? .infinity }
            emit(key + ".delay_s", delays.reduce(0, +) / Double(max(delays.count, 1)))
            emit(key + ".worst_delay_s", delays.max() ?? 0)
        }
    }
}

struct RemoteJob: Sendable {
    var label: String
    var start: ContinuousClock.Instant
    var duration: Duration
    var polls = 0
    var detected: ContinuousClock.Instant?
}

func asSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
