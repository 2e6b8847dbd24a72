import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayWire
import Hummingbird

/// The query parameters every controller reads the same way.
extension Request {
    /// A query parameter (the first of its name), decoded as `queryPairs` says.
    package func query(_ name: String) -> String? { queryPairs.first { $0.name == name }?.value }

    /// Query parameters as a plain dictionary (last one wins).
    package var queryDictionary: [String: String] {
        Dictionary(queryPairs.map { ($0.name, $0.value) }) { _, last in last }
    }

    /// The query string read as `application/x-www-form-urlencoded` (WHATWG URL), the way
    /// browsers, curl's `--data-urlencode` and Python's `requests` write it: `+` is a space,
    /// and names are decoded like values. Hummingbird's `queryParameters` does neither, so
    /// `?q=two+words` searched for a plus sign. A malformed `%` escape is kept as it came.
    package var queryPairs: [(name: String, value: String)] {
        guard let query = uri.query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// `?limit=`: 1 to 200, 50 when absent.
    package func pageLimit(default fallback: Int = 50, max: Int = 200) throws -> Int {
        guard let text = query("limit") else { return fallback }
        guard let limit = Int(text), (1...max).contains(limit) else {
            throw APIError(.badRequest, "invalid_argument", "limit '\(text)' must be a number from 1 to \(max)")
        }
        return limit
    }

    /// A true/false query parameter (`WireFlag`); false when absent.
    package func flag(_ name: String) throws -> Bool {
        guard let text = query(name) else { return false }
        guard let flag = WireFlag.parse(text) else {
            throw APIError(.badRequest, "invalid_argument", "\(name) '\(text)' must be true or false")
        }
        return flag
    }

    /// `?cursor=`: nil when absent or empty (a client that fills every parameter in sends an
    /// empty one on its first page).
    package var cursor: String? { query("cursor").flatMap { $0.isEmpty ? nil : $0 } }

    /// A query parameter naming one of an enumeration's values (any case); nil when absent.
    package func choice<Value: RawRepresentable & CaseIterable>(_ name: String, code: String) throws -> Value? where Value.RawValue == String {
        guard let text = query(name) else { return nil }
        guard let value = Value(rawValue: text.uppercased()) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError(.badRequest, code, "\(name) '\(text)' is not one of \(allowed)")
        }
        return value
    }
}

/// JSON answers with the API's encoder.
package func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    jsonResponse(bytes: Array(try WireJSON.encoder().encode(value)), status: status, headers: headers)
}

/// A job's answer, written by `JobJSON.write(to:)` — the one writer of a job's JSON, at a
/// fraction of `JSONEncoder`'s cost — for the API's most frequent answer (every poll).
package func jsonResponse(_ job: JobJSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    try jsonResponse(bytes: job.json(), status: status, headers: headers)
}

/// JSON already written (`JSONOutput`).
package func jsonResponse(bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
    var headers = headers
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}

extension JobEngine {
    /// A job of `owner`, or 404: another owner's job does not exist for this one.
    package func job(_ id: String, ownedBy owner: String) async throws -> Job {
        var job: Job?
        if let uuid = UUID(uuidString: id) { job = try await self.job(uuid) }
        guard let job, job.owner == owner else { throw APIError(.notFound, "job_not_found", "no job with id '\(id)'") }
        return job
    }
}
