import Crypto
import Foundation
import GatewayHTTPClient

/// The S3 requests the library makes, signed with SigV4 and sent through the project's one
/// libcurl loop: bodies stream from files and into files, never whole in memory.
///
/// Errors come back as `S3Error`s that say whether a retry may help; retrying is the caller's
/// choice (a job waits out an outage, a download answers 503 at once).
public struct S3Client: Sendable {
    public let location: S3Location
    /// A larger object goes up as a multipart upload in parts of this size (S3 wants at least 5 MiB).
    public let partSize: Int64
    let http: HTTPClient
    let signer: SigV4

    public init(location: S3Location, partSize: Int64 = 8 << 20) {
        self.location = location
        self.partSize = max(5 << 20, partSize)
        // No total timeout (a large object takes as long as it takes), but a server that stops
        // moving bytes for 30 s is given up on, so an outage surfaces as an error to retry.
        self.http = HTTPClient(
            configuration: HTTPClientConfiguration(
                connectTimeout: .seconds(5),
                lowSpeedLimit: .init(bytesPerSecond: 1, duration: .seconds(30)),
                proxy: .environment,
                userAgent: "pdfgate"
            )
        )
        self.signer = SigV4(credentials: location.credentials, region: location.region)
    }

    /// What S3 says about an object.
    public struct ObjectInfo: Sendable, Equatable {
        public var key: String
        public var size: Int64
        /// The server's ETag, without quotes (an MD5 for a single PUT, not for a multipart one).
        public var etag: String
        public var lastModified: Date?
        public var contentType: String?
        /// `x-amz-meta-*` fields, by name without the prefix, lowercased.
        public var metadata: [String: String]
    }

    /// Checks that the bucket exists and the keys may list it: what `serve` asks before it starts.
    public func checkAccess() async throws(S3Error) {
        _ = try await list(prefix: location.prefix.isEmpty ? "" : location.prefix + "/", limit: 1)
    }

    /// Stores the file at `path` as `key` (the whole key), in one `PUT` or, past `partSize`, one
    /// multipart upload. The server checks the bytes against `sha256`, and keeps it as
    /// `x-amz-meta-sha256` beside `contentType`.
    public func upload(_ path: String, key: String, size: Int64, sha256: String, contentType: String) async throws(S3Error) {
        let headers = ["Content-Type": contentType, "x-amz-meta-sha256": sha256]
        guard size > partSize else {
            _ = try await send("PUT", key: key, headers: headers, body: .file(path: path), payloadHash: sha256)
            return
        }
        let started = try await send("POST", key: key, query: [URLQueryItem(name: "uploads", value: "")], headers: headers, body: .none)
        guard let uploadID = S3XML(started.body).first("UploadId"), !uploadID.isEmpty else {
            throw S3Error(.failed, "the S3 server started a multipart upload of \(key) without an UploadId")
        }
        do throws(S3Error) {
            var parts: [(number: Int, etag: String)] = []
            var offset: Int64 = 0
            while offset < size {
                let length = min(partSize, size - offset)
                let number = parts.count + 1
                let hash = try Self.sha256(of: path, offset: offset, length: length)
                let answer = try await send(
                    "PUT",
                    key: key,
                    query: [URLQueryItem(name: "partNumber", value: String(number)), URLQueryItem(name: "uploadId", value: uploadID)],
                    body: .fileRange(path: path, offset: offset, length: length),
                    payloadHash: hash
                )
                parts.append((number, answer.header("ETag") ?? ""))
                offset += length
            }
            let manifest =
                "<CompleteMultipartUpload>"
                + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.escape($0.etag))</ETag></Part>" }.joined()
                + "</CompleteMultipartUpload>"
            let completed = try await send(
                "POST",
                key: key,
                query: [URLQueryItem(name: "uploadId", value: uploadID)],
                headers: ["Content-Type": "application/xml"],
                body: .text(manifest)
            )
            // S3 may answer 200 and still report a failure in the body.
            let answer = S3XML(completed.body)
            if let code = answer.first("Code") {
                throw S3Error(Self.classifyBody(code), s3Code: code, "completing the upload of \(key) failed: \(answer.first("Message") ?? code)")
            }
        } catch {
            _ = try? await send("DELETE", key: key, query: [URLQueryItem(name: "uploadId", value: uploadID)], body: .none)
            throw error
        }
    }

    /// Writes object `key` (or bytes `range` of it) into a file created at `path`.
    @discardableResult
    public func download(_ key: String, to path: String, range: ClosedRange<Int64>? = nil) async throws(S3Error) -> ObjectInfo {
        var headers: [String: String] = [:]
        if let range { headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        let answer = try await send("GET", key: key, headers: headers, body: .none, sink: .file(path: path))
        return Self.info(key: key, answer)
    }

    /// What S3 holds as `key`; nil when there is no such object.
    public func head(_ key: String) async throws(S3Error) -> ObjectInfo? {
        do {
            return Self.info(key: key, try await send("HEAD", key: key, body: .none))
        } catch  where error.kind == .noSuchKey {
            return nil
        }
    }

    /// Removes object `key`; one already gone is no error.
    public func delete(_ key: String) async throws(S3Error) {
        do {
            _ = try await send("DELETE", key: key, body: .none)
        } catch  where error.kind == .noSuchKey {
        }
    }

    /// One page of the objects whose keys start with `prefix`, and the token of the next page.
    public func list(prefix: String, after token: String? = nil, limit: Int = 1000) async throws(S3Error) -> (objects: [ObjectInfo], next: String?) {
        var query = [
            URLQueryItem(name: "list-type", value: "2"), URLQueryItem(name: "prefix", value: prefix),
            URLQueryItem(name: "max-keys", value: String(limit)),
        ]
        if let token { query.append(URLQueryItem(name: "continuation-token", value: token)) }
        let answer = S3XML(try await send("GET", key: nil, query: query, body: .none).body)
        let objects = answer.contents.map { entry in
            ObjectInfo(
                key: entry["Key"] ?? "",
                size: Int64(entry["Size"] ?? "") ?? 0,
                etag: Self.unquoted(entry["ETag"] ?? ""),
                lastModified: Self.date(entry["LastModified"]),
                contentType: nil,
                metadata: [:]
            )
        }
        let truncated = answer.first("IsTruncated") == "true"
        return (objects, truncated ? answer.first("NextContinuationToken") : nil)
    }

    /// Every object under `prefix`, page after page.
    public func listAll(prefix: String) async throws(S3Error) -> [ObjectInfo] {
        var all: [ObjectInfo] = []
        var token: String?
        repeat {
            let page = try await list(prefix: prefix, after: token)
            all += page.objects
            token = page.next
        } while token != nil
        return all
    }

    /// A URL that fetches `key` without credentials until `expires` has passed, answered with
    /// `Content-Disposition` when given.
    public func presignedURL(_ key: String, expires: Duration, contentDisposition: String? = nil, now: Date = Date()) -> URL {
        let query = contentDisposition.map { [URLQueryItem(name: "response-content-disposition", value: $0)] } ?? []
        return signer.presign(url: location.url(key: key, query: query), expires: expires, date: now)
    }

    // MARK: the exchange

    private func send(
        _ method: String,
        key: String?,
        query: [URLQueryItem] = [],
        headers: [String: String] = [:],
        body: HTTPRequestBody,
        payloadHash: String? = nil,
        sink: HTTPResponseSink = .memory(limit: 4 << 20)
    ) async throws(S3Error) -> HTTPResponse {
        let url = location.url(key: key, query: query)
        var hash = payloadHash ?? SigV4.emptyPayload
        if payloadHash == nil, case .bytes(let bytes) = body { hash = SigV4.hex(SHA256.hash(data: bytes)) }
        let signed = signer.authorization(method: method, url: url, headers: headers, payloadHash: hash, date: Date())
        var fields = HTTPHeaders(headers.map { ($0.key, $0.value) })
        for (name, value) in signed { fields.add(name, value) }
        let what =
            "\(method) \(location.uri)" + (key.map { "/" + String($0.dropFirst(location.prefix.isEmpty ? 0 : location.prefix.count + 1)) } ?? "")
        let response: HTTPResponse
        do {
            response = try await http.execute(HTTPRequest(method: method, url: url.string!, headers: fields, body: body), sink: sink)
        } catch let error as HTTPClientError {
            let kind: S3Error.Kind = error.isTransient ? .unavailable : .failed
            throw S3Error(kind, "\(what): the S3 server at \(location.endpoint.absoluteString) did not answer (\(error.message))")
        } catch {
            throw S3Error(.unavailable, "\(what) was interrupted: \(error)")
        }
        guard !response.isSuccess else { return response }
        if case .file(let path) = sink { unlink(path) }
        let answer = S3XML(response.body)
        let s3Code = answer.first("Code") ?? (response.status == 404 ? (key == nil ? "NoSuchBucket" : "NoSuchKey") : nil)
        let kind = S3Error.classify(status: response.status, s3Code: s3Code)
        throw S3Error(kind, s3Code: s3Code, "\(what) answered \(response.status)\(s3Code.map { " \($0)" } ?? "")\(Self.advice(kind))")
    }

    private static func advice(_ kind: S3Error.Kind) -> String {
        switch kind {
        case .denied: ": check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and the key's permissions on the bucket)"
        case .noSuchBucket: ": create the bucket, or correct the bucket in --documents"
        case .unavailable: ": the S3 server is down or overloaded; it is retried"
        case .noSuchKey, .failed: ""
        }
    }

    private static func classifyBody(_ code: String) -> S3Error.Kind {
        ["InternalError", "SlowDown", "ServiceUnavailable"].contains(code) ? .unavailable : .failed
    }

    private static func info(key: String, _ response: HTTPResponse) -> ObjectInfo {
        var metadata: [String: String] = [:]
        for field in response.headers where field.name.lowercased().hasPrefix("x-amz-meta-") {
            metadata[String(field.name.lowercased().dropFirst("x-amz-meta-".count))] = field.value
        }
        let size =
            response.header("Content-Range").flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
            ?? Int64(response.header("Content-Length") ?? "") ?? response.bytesReceived
        return ObjectInfo(
            key: key,
            size: size,
            etag: unquoted(response.header("ETag") ?? ""),
            lastModified: response.header("Last-Modified").flatMap(httpDate),
            contentType: response.header("Content-Type"),
            metadata: metadata
        )
    }

    /// SHA-256 (hex) of `length` bytes of a file from `offset`, read in 1 MiB pieces.
    static func sha256(of path: String, offset: Int64, length: Int64) throws(S3Error) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw S3Error(.failed, "cannot read \(path) to upload it") }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            try handle.seek(toOffset: UInt64(offset))
            var left = length
            while left > 0 {
                guard let chunk = try handle.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty else {
                    throw S3Error(.failed, "\(path) ended before byte \(offset + length) while uploading it")
                }
                hasher.update(data: chunk)
                left -= Int64(chunk.count)
            }
        } catch let error as S3Error {
            throw error
        } catch {
            throw S3Error(.failed, "cannot read \(path) to upload it: \(error)")
        }
        return SigV4.hex(hasher.finalize())
    }

    private static func unquoted(_ text: String) -> String { text.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
