import Foundation
import GatewayJobModel
import GatewayTestSupport
import Synchronization

/// Another PDF Gateway, as far as the v1 job protocol goes (DESIGN §3.1), on 127.0.0.1: create,
/// signed upload, submit, status polls, download, cancel. Each job "converts" for `jobDuration`
/// after it is queued, then succeeds with a real PDF or fails as scripted; misbehaviours are
/// switched on per test.
final class FakeRemoteGateway: Sendable {
    struct Job: Sendable {
        var id: String
        var status: JobStatus
        var queuedAt: ContinuousClock.Instant?
        var body: [String: String] = [:]
        var uploaded: [UInt8]?
    }

    enum Outcome: Sendable {
        case succeed
        case fail(code: String?, message: String)
    }

    /// What the download URL of a succeeded job sends.
    enum Download: Sendable {
        case pdf
        /// A 200 whose body is not a PDF (a proxy's login page, say).
        case garbage(String)
        /// Announces the whole PDF, sends its first 600 bytes, and hangs up.
        case truncated
        /// This status, with a plain-text reason.
        case status(Int)
        /// Announces the whole PDF and trickles it, a byte every 200 ms.
        case trickle
    }

    struct Behaviour: Sendable {
        var jobDuration: Duration = .milliseconds(200)
        var download = Download.pdf
        var outcome: Outcome = .succeed
        /// Answer create with this status (and headers) instead of creating a job.
        var createAnswer: (status: Int, headers: [(String, String)])?
        /// Answer the upload with this status.
        var uploadStatus = 200
        /// Never answer status polls.
        var hangOnPolls = false
        /// Reset this many status polls before answering normally.
        var resetPolls = 0
        /// Send this `Retry-After` on status answers of unfinished jobs.
        var pollRetryAfter: String?
        /// Answer this many status polls 503 with `Retry-After: busyRetryAfter`.
        var busyPolls = 0
        var busyRetryAfter = "2"
    }

    struct Record: Sendable {
        var jobs: [String: Job] = [:]
        /// `METHOD path` of every request, in order.
        var requests: [String] = []
        var polls = 0
        var deletes: [String] = []
        var authorization: [String: String?] = [:]
        /// When the first poll that saw the job finished arrived.
        var finishNoticedAt: ContinuousClock.Instant?
        var finishedAt: ContinuousClock.Instant?
        /// Whether `.remoteJobCreated` had been reported when the upload and the first poll arrived.
        var idKnownAtUpload: Bool?
        var idKnownAtFirstPoll: Bool?
        var uploadContentType: String?
        var nextID = 1
    }

    let record = Locked(Record())
    let behaviour: Locked<Behaviour>
    private let events: HTTPBackendEvents?
    private let serverBox = Locked<FakeHTTPServer?>(nil)
    var server: FakeHTTPServer { serverBox.value! }
    var baseURL: String { server.baseURL }

    init(_ behaviour: Behaviour = Behaviour(), events: HTTPBackendEvents? = nil) throws {
        self.behaviour = Locked(behaviour)
        self.events = events
        let server = try FakeHTTPServer { [weak self] request, response in
            guard let self else { return try response.respond(status: 503) }
            try self.handle(request, response)
        }
        serverBox.update { $0 = server }
    }

    func stop() { server.stop() }

    /// Adds a job that was queued `ago` and is still converting.
    func seedJob(id: String, queuedAgo ago: Duration) {
        record.update { $0.jobs[id] = Job(id: id, status: .queued, queuedAt: .now - ago) }
    }

    var requests: [String] { record.value.requests }

    private func handle(_ request: ReceivedRequest, _ response: ResponseWriter) throws {
        let segments = request.path.split(separator: "/").map(String.init)
        record.update {
            $0.requests.append("\(request.method) \(request.path)")
            $0.authorization["\(request.method) \(request.path)"] = request.header("Authorization")
        }
        switch (request.method, segments.count, segments.first) {
        case ("POST", 2, "v1"): try create(request, response)
        case ("PUT", 2, "upload"): try upload(segments[1], request, response)
        case ("POST", 4, "v1") where segments[3] == "submit": try submit(segments[2], response)
        case ("GET", 3, "v1"): try poll(segments[2], response)
        case ("DELETE", 3, "v1"):
            record.update {
                $0.deletes.append(segments[2])
                if $0.jobs[segments[2]]?.status.isTerminal == false { $0.jobs[segments[2]]?.status = .cancelled }
            }
            try json(response, 200, ["status": "CANCELLED"])
        case ("GET", 2, "download"):
            switch behaviour.value.download {
            case .pdf: try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: onePagePDF)
            case .garbage(let text): try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: text)
            case .truncated:
                try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: Int64(onePagePDF.count))
                try response.write(Array(onePagePDF.prefix(600)))
                response.close()
            case .status(let status): try response.respond(status: status, text: "the download broke")
            case .trickle:
                try response.startBody(status: 200, headers: [("Content-Type", "application/pdf")], contentLength: Int64(onePagePDF.count))
                try response.trickle(onePagePDF, every: .milliseconds(200))
            }
        default: try json(response, 404, ["error": "not_found", "error_message": "no route"])
        }
    }

    private func create(_ request: ReceivedRequest, _ response: ResponseWriter) throws {
        if let (status, headers) = behaviour.value.createAnswer {
            return try json(response, status, ["error": "busy", "error_message": "the gateway is overloaded"], headers: headers)
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(try request.readBody()))) as? [String: Any] ?? [:]
        let body = object.compactMapValues { $0 as? String }
        let job = record.update { record -> Job in
            defer { record.nextID += 1 }
            let isURL = body["url"] != nil
            let job = Job(id: "remote-\(record.nextID)", status: isURL ? .queued : .created, queuedAt: isURL ? .now : nil, body: body)
            record.jobs[job.id] = job
            return job
        }
        var answer: [String: Any] = ["job_id": job.id, "status": job.status.rawValue]
        if job.status == .created { answer["upload"] = ["method": "PUT", "url": server.url("/upload/\(job.id)?sig=abc")] }
        try json(response, 201, answer)
    }

    private func upload(_ id: String, _ request: ReceivedRequest, _ response: ResponseWriter) throws {
        let known = events?.all.contains(.remoteJobCreated(id))
        let bytes = try request.readBody()
        let status = behaviour.value.uploadStatus
        record.update {
            $0.idKnownAtUpload = known
            $0.uploadContentType = request.header("Content-Type")
            if status == 200 { $0.jobs[id]?.uploaded = bytes }
        }
        if status == 200 {
            try response.respond(status: 200)
        } else {
            try json(response, status, ["error": "too_large", "error_message": "over the cap"])
        }
    }

    private func submit(_ id: String, _ response: ResponseWriter) throws {
        record.update {
            $0.jobs[id]?.status = .queued
            $0.jobs[id]?.queuedAt = .now
        }
        try json(response, 200, ["status": "QUEUED"])
    }

    private func poll(_ id: String, _ response: ResponseWriter) throws {
        let known = events?.all.contains(.remoteJobCreated(id))
        let (pollNumber, behaviour) = record.update { record in
            if record.polls == 0 { record.idKnownAtFirstPoll = known }
            record.polls += 1
            return (record.polls, self.behaviour.value)
        }
        if behaviour.hangOnPolls { return response.hang() }
        if pollNumber <= behaviour.resetPolls { return response.reset() }
        if pollNumber <= behaviour.busyPolls {
            return try json(response, 503, ["error": "busy", "error_message": "try later"], headers: [("Retry-After", behaviour.busyRetryAfter)])
        }
        let job = record.update { record -> Job? in
            guard var job = record.jobs[id] else { return nil }
            if job.status == .queued || job.status == .processing, let queued = job.queuedAt {
                if ContinuousClock.now >= queued + behaviour.jobDuration {
                    if case .fail = behaviour.outcome { job.status = .failed } else { job.status = .succeeded }
                    record.finishedAt = queued + behaviour.jobDuration
                    record.finishNoticedAt = .now
                } else {
                    job.status = .processing
                }
                record.jobs[id] = job
            }
            return job
        }
        guard let job else { return try json(response, 404, ["error": "job_not_found", "error_message": "no such job"]) }
        var answer: [String: Any] = ["job_id": job.id, "status": job.status.rawValue]
        var headers: [(String, String)] = []
        switch job.status {
        case .succeeded: answer["download_url"] = server.url("/download/\(job.id)?sig=xyz")
        case .failed:
            if case .fail(let code, let message) = behaviour.outcome {
                answer["error_message"] = message
                if let code { answer["error"] = code }
            }
        default:
            if let retryAfter = behaviour.pollRetryAfter { headers.append(("Retry-After", retryAfter)) }
        }
        try json(response, 200, answer, headers: headers)
    }

    private func json(_ response: ResponseWriter, _ status: Int, _ object: [String: Any], headers: [(String, String)] = []) throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try response.respond(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(data))
    }
}
