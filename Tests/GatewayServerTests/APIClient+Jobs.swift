import GatewayTestSupport

extension APIClient {
    /// The statuses a job ends in.
    static let endStatuses: Set<String> = ["SUCCEEDED", "FAILED", "CANCELLED"]

    /// Polls job `id` until it ends and returns that answer; throws, with the last answer seen,
    /// when `limit` passes first.
    func ended(_ id: String, within limit: Duration = .seconds(90), poll: Duration = .milliseconds(100)) async throws -> Answer {
        var last = ""
        return try await until("job \(id) ends; last: \(last)", within: limit, poll: poll) {
            let job = try await get("/v1/jobs/\(id)")
            last = job.text
            return Self.endStatuses.contains(job.string("status") ?? "") ? job : nil
        }
    }
}
