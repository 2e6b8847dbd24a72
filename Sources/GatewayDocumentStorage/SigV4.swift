import Crypto
import Foundation

/// AWS Signature Version 4 for S3, on swift-crypto: the `Authorization` header of a request
/// and presigned URLs. The same signature every S3 server checks (AWS, Ceph's RADOS Gateway,
/// MinIO, Garage), so one implementation serves them all.
struct SigV4: Sendable {
    var credentials: S3Credentials
    var region: String
    var service = "s3"

    /// The body's SHA-256 when it is not signed (presigned URLs; bodies streamed without a hash).
    static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of no bytes: the payload hash of a GET, HEAD or DELETE.
    static let emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request so the server accepts it: `x-amz-date`,
    /// `x-amz-content-sha256`, the session token if any, and `Authorization`.
    ///
    /// - Parameters:
    ///   - url: the request's absolute URL; its query is signed as given.
    ///   - headers: headers the request will carry that must be signed too (`Range`, `Content-Type`,
    ///     `x-amz-meta-*`); `host` is added from the URL.
    ///   - payloadHash: the body's SHA-256 in hex, or `unsignedPayload`.
    func authorization(method: String, url: URLComponents, headers: [String: String], payloadHash: String, date: Date) -> [String: String] {
        let stamp = Stamp(date)
        var signed = headers.reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value.trimmingCharacters(in: .whitespaces) }
        signed["host"] = Self.hostHeader(url)
        signed["x-amz-date"] = stamp.dateTime
        signed["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { signed["x-amz-security-token"] = token }
        let names = signed.keys.sorted()
        let canonical = [
            method,
            Self.canonicalPath(url),
            Self.canonicalQuery(url.percentEncodedQueryItems ?? []),
            names.map { "\($0):\(signed[$0]!)\n" }.joined(),
            names.joined(separator: ";"),
            payloadHash,
        ].joined(separator: "\n")
        let signature = sign(canonical, stamp: stamp)
        var added = signed.filter { $0.key != "host" && headers[$0.key] == nil }
        added["Authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"
        return added
    }

    /// `url` with the query parameters that let anyone holding it make this one request until it
    /// expires, without credentials: the download redirect.
    func presign(method: String = "GET", url: URLComponents, expires: Duration, date: Date) -> URL {
        let stamp = Stamp(date)
        var query = url.percentEncodedQueryItems ?? []
        query += [
            URLQueryItem(name: "X-Amz-Algorithm", value: "AWS4-HMAC-SHA256"),
            URLQueryItem(name: "X-Amz-Credential", value: Self.encode("\(credentials.accessKeyID)/\(scope(stamp))")),
            URLQueryItem(name: "X-Amz-Date", value: stamp.dateTime),
            URLQueryItem(name: "X-Amz-Expires", value: String(max(1, min(604_800, expires.components.seconds)))),
            URLQueryItem(name: "X-Amz-SignedHeaders", value: "host"),
        ]
        if let token = credentials.sessionToken { query.append(URLQueryItem(name: "X-Amz-Security-Token", value: Self.encode(token))) }
        let canonical = [
            method,
            Self.canonicalPath(url),
            Self.canonicalQuery(query),
            "host:\(Self.hostHeader(url))\n",
            "host",
            Self.unsignedPayload,
        ].joined(separator: "\n")
        query.append(URLQueryItem(name: "X-Amz-Signature", value: sign(canonical, stamp: stamp)))
        var signed = url
        signed.percentEncodedQueryItems = query
        return signed.url!
    }

    private func scope(_ stamp: Stamp) -> String { "\(stamp.day)/\(region)/\(service)/aws4_request" }

    private func sign(_ canonicalRequest: String, stamp: Stamp) -> String {
        let toSign = [
            "AWS4-HMAC-SHA256",
            stamp.dateTime,
            scope(stamp),
            Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [stamp.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// `host` or `host:port` as the request's `Host` header carries it (default ports left out).
    static func hostHeader(_ url: URLComponents) -> String {
        let host = url.host ?? ""
        guard let port = url.port, !(url.scheme == "http" && port == 80), !(url.scheme == "https" && port == 443) else { return host }
        return "\(host):\(port)"
    }

    /// The path as sent, each segment percent-encoded once (S3 does not double-encode).
    static func canonicalPath(_ url: URLComponents) -> String {
        let path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { encode($0.removingPercentEncoding ?? String($0)) }
            .joined(separator: "/")
    }

    /// Query parameters sorted by name, then value, each percent-encoded as SigV4 says.
    static func canonicalQuery(_ items: [URLQueryItem]) -> String {
        let pairs: [(name: String, value: String)] = items.map { item in
            let value = item.value ?? ""
            return (encode(item.name.removingPercentEncoding ?? item.name), encode(value.removingPercentEncoding ?? value))
        }
        let sorted = pairs.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))

    /// RFC 3986 encoding: everything but `A-Z a-z 0-9 - _ . ~` as `%XX`.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(Character(UnicodeScalar(byte)))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The request time in SigV4's two forms, UTC.
    private struct Stamp {
        var dateTime: String
        var day: String

        init(_ date: Date) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            day = String(format: "%04d%02d%02d", c.year!, c.month!, c.day!)
            dateTime = day + String(format: "T%02d%02d%02dZ", c.hour!, c.minute!, c.second!)
        }
    }
}
