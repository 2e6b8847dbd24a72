import Foundation
import GatewayLibraryModel
import Logging

/// The library's documents as objects in an S3 bucket: `PREFIX/documents/<id>/<sha256>.pdf`,
/// each with its content type and SHA-256, read through a local `ObjectCache`.
///
/// Writes wait out an outage (a job's result is worth waiting for: retried with backoff for up
/// to `writePatience`); reads give up after a few seconds with `storage_unavailable`, which the
/// API answers as 503 with `Retry-After`.
public struct BucketDocuments: DocumentObjects {
    public let client: S3Client
    let cache: ObjectCache
    public let grace: Duration
    let writePatience: Duration
    let readPatience: Duration
    let logger: Logger

    /// - Parameters:
    ///   - cacheDirectory: where local copies are kept, at most `cacheBytes` of them.
    public init(
        client: S3Client,
        cacheDirectory: String,
        cacheBytes: Int64,
        grace: Duration = .seconds(15 * 60),
        writePatience: Duration = .seconds(600),
        readPatience: Duration = .seconds(3),
        logger: Logger = Logger(label: "pdfgate.storage")
    ) throws {
        self.client = client
        self.cache = try ObjectCache(directory: cacheDirectory, maxBytes: cacheBytes)
        self.writePatience = writePatience
        self.grace = grace
        self.readPatience = readPatience
        self.logger = logger
    }

    public var location: String { client.location.uri }

    /// The whole key of a document's content.
    public func key(id: UUID, sha256: String) -> String {
        client.location.key("documents/\(id.uuidString.lowercased())/\(sha256).pdf")
    }

    public func store(_ path: String, id: UUID, sha256: String, size: Int64) async throws(LibraryError) {
        let key = key(id: id, sha256: sha256)
        try await retrying("store \(key)", patience: writePatience) {
            try await client.upload(path, key: key, size: size, sha256: sha256, contentType: "application/pdf")
        }
        // The search indexer and the first download read it next: from here, not from the bucket.
        await cache.adopt(path, as: cacheName(id: id, sha256: sha256), size: size)
    }

    func cacheName(id: UUID, sha256: String) -> String { "\(id.uuidString.lowercased())-\(sha256).pdf" }

    public func localFile(id: UUID, sha256: String, size: Int64) async throws(LibraryError) -> String {
        let key = key(id: id, sha256: sha256)
        let client = client
        do {
            return try await cache.file(cacheName(id: id, sha256: sha256), size: size) { partial in
                _ = try await retrying("read \(key)", patience: readPatience) { try await client.download(key, to: partial) }
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(.storage, "cannot read \(key) from \(location): \(error)")
        }
    }

    public func downloadURL(id: UUID, sha256: String, filename: String, expires: Duration) -> String? {
        let disposition = "inline; filename*=UTF-8''" + SigV4.encode(filename)
        return client.presignedURL(key(id: id, sha256: sha256), expires: expires, contentDisposition: disposition).absoluteString
    }

    public func inventory() async throws(LibraryError) -> [StoredObject] {
        let root = client.location.key("documents/")
        let objects = try await retrying("list \(root)", patience: readPatience) { try await client.listAll(prefix: root) }
        return objects.map { object in
            let parts = object.key.dropFirst(root.count).split(separator: "/")
            let id = parts.count == 2 ? UUID(uuidString: String(parts[0])) : nil
            let sha = parts.count == 2 && parts[1].hasSuffix(".pdf") ? String(parts[1].dropLast(4)) : nil
            return StoredObject(key: object.key, id: id, sha256: id == nil ? nil : sha, size: object.size, lastModified: object.lastModified)
        }
    }

    public func contains(id: UUID, sha256: String, size: Int64) async throws(LibraryError) -> Bool {
        let key = key(id: id, sha256: sha256)
        return try await retrying("look up \(key)", patience: readPatience) { try await client.head(key)?.size == size }
    }

    public func remove(id: UUID, sha256: String) async throws(LibraryError) {
        let key = key(id: id, sha256: sha256)
        try await retrying("remove \(key)", patience: readPatience) { try await client.delete(key) }
        await cache.remove(cacheName(id: id, sha256: sha256))
    }

    /// Runs `body`, again with backoff (0.25 s doubling to 8 s) while S3 is unavailable, until
    /// `patience` has passed; then `storage_unavailable`. Other failures are `storage_error`s.
    func retrying<T: Sendable>(_ what: String, patience: Duration, _ body: () async throws -> T) async throws(LibraryError) -> T {
        let deadline = ContinuousClock.now + patience
        var pause = Duration.milliseconds(250)
        while true {
            do {
                return try await body()
            } catch let error as S3Error where error.isTransient && !Task.isCancelled && ContinuousClock.now + pause < deadline {
                logger.warning("storage.retry", metadata: ["storage.request": "\(what)", "storage.error": "\(error.message)"])
                do { try await Task.sleep(for: pause) } catch {
                    throw LibraryError(.storageUnavailable, "\(what) was cancelled while \(location) did not answer")
                }
                pause = min(pause * 2, .seconds(8))
            } catch let error as S3Error where error.isTransient {
                throw LibraryError(.storageUnavailable, "the document storage \(location) does not answer: \(error.message); try again in a moment")
            } catch let error as S3Error {
                throw LibraryError(.storage, "the document storage \(location) refused a request: \(error.message)")
            } catch {
                throw LibraryError(.storageUnavailable, "\(what) was cancelled while \(location) did not answer")
            }
        }
    }
}
