import Foundation
import GatewayDocumentStorage
import GatewayLibraryModel
import Logging

/// Where a gateway keeps documents' bytes.
public enum DocumentsChoice: Sendable, Equatable, CustomStringConvertible {
    /// Files in the store's folder tree (one machine, or a shared file system).
    case folderTree
    /// Objects in an S3 bucket, `s3://BUCKET/PREFIX`; the keys and server come from the AWS
    /// variables when the store opens.
    case bucket(String)

    /// `tree` (or empty) for the folder tree, otherwise an `s3://` address.
    public init(parsing text: String, setting: String = "--documents") throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "tree" {
            self = .folderTree
            return
        }
        do {
            _ = try S3Location.address(trimmed, setting: setting)
        } catch {
            throw ConfigurationError(error.description)
        }
        self = .bucket(trimmed)
    }

    public var description: String {
        switch self {
        case .folderTree: "tree"
        case .bucket(let uri): uri
        }
    }

    /// The bucket's objects, their cache under `root`, once the bucket answers with the keys
    /// given; nil for the folder tree. A wrong key, a missing bucket or a server that does not
    /// answer stops here with a message naming the setting to fix.
    public func open(
        root: String,
        cacheBytes: Int64 = 2 << 30,
        grace: Duration = .seconds(15 * 60),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        setting: String = "--documents",
        logger: Logger = Logger(label: "pdfgate.storage")
    ) async throws -> BucketDocuments? {
        guard case .bucket(let uri) = self else { return nil }
        let location: S3Location
        do {
            location = try S3Location.parse(uri, environment: environment, setting: setting)
        } catch {
            throw ConfigurationError(error.description)
        }
        let client = S3Client(location: location)
        do {
            try await client.checkAccess()
        } catch {
            throw ConfigurationError("\(setting) \(uri) cannot be used: \(error.message)")
        }
        let cache = URL(fileURLWithPath: root).appendingPathComponent(".pdfgate/cache/objects").path
        return try BucketDocuments(client: client, cacheDirectory: cache, cacheBytes: cacheBytes, grace: grace, logger: logger)
    }
}
