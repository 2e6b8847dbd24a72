import Foundation

/// Where documents live in object storage: `s3://BUCKET/PREFIX`, the server that holds the
/// bucket, and how to reach and sign for it.
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    /// Every key starts with this (no leading or trailing slash; empty for the bucket's root).
    public var prefix: String
    /// The server's base URL, e.g. `http://127.0.0.1:7480` or `https://s3.eu-west-1.amazonaws.com`.
    public var endpoint: URL
    /// Bucket in the path (`endpoint/bucket/key`), as a custom endpoint needs; AWS's own
    /// endpoint takes the bucket in the host name instead.
    public var pathStyle: Bool
    public var region: String
    public var credentials: S3Credentials

    public init(bucket: String, prefix: String, endpoint: URL, pathStyle: Bool, region: String, credentials: S3Credentials) {
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.pathStyle = pathStyle
        self.region = region
        self.credentials = credentials
    }

    /// `s3://bucket/prefix`, as given to `--documents`.
    public var uri: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    /// Reads `s3://BUCKET[/PREFIX]` and the AWS variables of `environment`: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`), and
    /// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` for a server other than AWS.
    public static func parse(_ uri: String, environment: [String: String], setting: String = "--documents") throws(S3ConfigurationError) -> S3Location
    {
        let (bucket, prefix) = try address(uri, setting: setting)
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw S3ConfigurationError(
                "\(setting) is a bucket, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set: set them to the bucket's keys"
            )
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        let custom = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        let endpoint: URL
        if let custom {
            guard let url = URL(string: custom), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw S3ConfigurationError("AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL '\(custom)' is not an http:// or https:// URL of an S3 server")
            }
            endpoint = url
        } else {
            endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        return S3Location(
            bucket: bucket,
            prefix: prefix,
            endpoint: endpoint,
            pathStyle: custom != nil || bucket.contains("."),
            region: region,
            credentials: S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        )
    }

    /// The bucket and prefix of `s3://BUCKET[/PREFIX]`, checked.
    public static func address(_ uri: String, setting: String = "--documents") throws(S3ConfigurationError) -> (bucket: String, prefix: String) {
        guard uri.lowercased().hasPrefix("s3://") else {
            throw S3ConfigurationError("\(setting) '\(uri)' is not an s3://BUCKET/PREFIX address")
        }
        let rest = uri.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isBucketName(bucket) else {
            throw S3ConfigurationError(
                "\(setting) '\(uri)': '\(bucket)' is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit)"
            )
        }
        return (bucket, rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/"))
    }

    static func isBucketName(_ name: String) -> Bool {
        let allowed = name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 }
        return (3...63).contains(name.count) && allowed && name.first.map { $0.isLetter || $0.isNumber } == true
            && name.last.map { $0.isLetter || $0.isNumber } == true
    }

    /// The URL of `key` in the bucket (the whole key, prefix included), or of the bucket itself.
    func url(key: String?, query: [URLQueryItem] = []) -> URLComponents {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        let base = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let encodedKey = key.map {
            $0.split(separator: "/", omittingEmptySubsequences: false).map { SigV4.encode(String($0)) }.joined(separator: "/")
        }
        if pathStyle {
            components.percentEncodedPath = base + "/" + bucket + (encodedKey.map { "/" + $0 } ?? "/")
        } else {
            components.host = bucket + "." + (components.host ?? "")
            components.percentEncodedPath = base + "/" + (encodedKey ?? "")
        }
        components.percentEncodedQueryItems =
            query.isEmpty ? nil : query.map { URLQueryItem(name: SigV4.encode($0.name), value: $0.value.map(SigV4.encode)) }
        return components
    }

    /// The full key of `name` under the prefix.
    public func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }
}

/// A bucket setting that cannot work; names the setting and what to change.
public struct S3ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
